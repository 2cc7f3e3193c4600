// The README's "Adapters and dongles" section, one click from the adapter picker, in the desktop
// app and the browser alike and without a network: the text is the README's own, taken at build
// time, so there is no second copy to drift (docs/decisions.md, "The README's dongle section in
// the app").
import { useState } from 'react';
import readme from '../../../../README.md?raw';
import { Modal } from '../../components/Modal';

const SECTION = 'Adapters and dongles';

/** The text of a `## ` section of a Markdown document, up to the next one. */
function markdownSection(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const body = markdown.slice(start + title.length + 5);
  const end = body.indexOf('\n## ');
  return (end < 0 ? body : body.slice(0, end)).trim();
}

export function DongleGuide() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <a
        href="#adapters-and-dongles"
        onClick={(event) => {
          event.preventDefault();
          setOpen(true);
        }}
      >
        the README&apos;s &ldquo;{SECTION}&rdquo; section
      </a>
      {open && (
        <Modal
          title={`README: ${SECTION}`}
          onDismiss={() => setOpen(false)}
          actions={
            <button type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          }
        >
          <pre className="readme-section" data-testid="readme-section">
            {markdownSection(readme, SECTION)}
          </pre>
        </Modal>
      )}
    </>
  );
}
