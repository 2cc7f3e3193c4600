// A sample page form whose fields carry `data-liff-autocomplete`, as an app's would; it is
// uncontrolled, so `fill` writes into it exactly as it would into any page.
import { forwardRef } from 'react';
import { COMMON_PROFILE_SCOPES } from '../../../core/platform/common-profile/schema';

export const SampleForm = forwardRef<HTMLFormElement>(function SampleForm(_props, ref) {
  return (
    <form
      ref={ref}
      className="inline-form"
      aria-label="Sample form"
      onSubmit={(event) => event.preventDefault()}
    >
      {COMMON_PROFILE_SCOPES.map((scope) => (
        <div className="field" key={scope}>
          <label htmlFor={`sample-${scope}`}>Form {scope}</label>
          <input id={`sample-${scope}`} data-liff-autocomplete={scope} defaultValue="" />
        </div>
      ))}
      <button type="reset">Clear form</button>
    </form>
  );
});
