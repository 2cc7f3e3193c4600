// The app's pages, grouped as pages.tsx lists them.
import { PAGE_GROUPS } from '../pages';

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
            {group.pages.map((entry) => (
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
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
