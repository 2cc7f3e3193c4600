// A titled section of a page. Its heading names the section for screen readers; the header
// also holds whatever acts on the whole section (refresh, clear, a count).
import { useId, type ReactNode } from 'react';

interface PanelProps {
  title: ReactNode;
  /** Shown in the header after the title. */
  actions?: ReactNode;
  testId?: string;
  /** For a link inside the app that scrolls to this section. */
  id?: string;
  children: ReactNode;
}

export function Panel({ title, actions, testId, id, children }: PanelProps) {
  const titleId = useId();
  return (
    <section className="panel" id={id} aria-labelledby={titleId} data-testid={testId}>
      <header className="panel-header">
        <h2 id={titleId}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
