// A form's text inputs, each named for the API field it fills, so each input can show the
// messages the API gave for its field and the form's error notice lists only the others.
import { useState } from 'react';
import { messagesFor } from './errors';

export function useFields<Name extends string>(initial: Record<Name, string>, error: unknown) {
  const [values, setValues] = useState(initial);
  const set = (name: Name, value: string) => setValues((prev) => ({ ...prev, [name]: value }));
  return {
    values,
    set,
    /** The TextField props for the input filling `name`. */
    bind: (name: Name) => ({
      name,
      value: values[name],
      onChange: (value: string) => set(name, value),
      messages: messagesFor(error, name),
    }),
    /** Every field the form shows at an input, for its ErrorNotice's `shownFields`. */
    names: Object.keys(initial) as Name[],
  };
}
