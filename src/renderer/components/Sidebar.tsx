// The app's pages, grouped; a page that is still to come is shown disabled.
import { PAGE_GROUPS, SETTINGS_PAGE } from '../pages';

export function Sidebar({
  page,
  onNavigate,
}: {
  page: string;
  onNavigate: (page: string) => void;
}) {
  return (
    <nav className="sidebar-nav" aria-label="Areas">
      {PAGE_GROUPS.map((group) => (
        <section key={group.title}>
          <h2>{group.title}</h2>
          <ul>
            {group.pages.map((entry) =>
              entry.render || entry.id === SETTINGS_PAGE ? (
                <li key={entry.id}>
                  <button
                    type="button"
                    className="nav-item"
                    aria-current={entry.id === page ? 'page' : undefined}
                    onClick={() => onNavigate(entry.id)}
                  >
                    {entry.label}
                  </button>
                </li>
              ) : (
                <li key={entry.id}>
                  <button
                    type="button"
                    className="nav-item"
                    disabled
                    title="Coming soon"
                    aria-label={`${entry.label} (coming soon)`}
                  >
                    {entry.label} <span className="soon">soon</span>
                  </button>
                </li>
              ),
            )}
          </ul>
        </section>
      ))}
    </nav>
  );
}
