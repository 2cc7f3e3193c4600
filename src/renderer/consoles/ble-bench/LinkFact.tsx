// One labelled value of a link card (a <dt>/<dd> pair in its facts list).
import type { ReactNode } from 'react';

export function LinkFact({
  label,
  testId,
  children,
}: {
  label: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div className="ble-link-fact">
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}
