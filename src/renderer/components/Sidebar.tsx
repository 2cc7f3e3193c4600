// The app's areas. Areas still to come are listed, disabled, so users see where things will go.
export type PageId = 'device-service' | 'emulator' | 'settings';

interface Area {
  label: string;
  page?: PageId;
}

const GROUPS: { title: string; areas: Area[] }[] = [
  {
    title: 'Bench',
    areas: [{ label: 'BLE bench' }, { label: 'Scenarios' }],
  },
  {
    title: 'API consoles',
    areas: [
      { label: 'Device service', page: 'device-service' },
      { label: 'Login & profile' },
      { label: 'Embedded apps' },
      { label: 'Service messages' },
      { label: 'In-app purchase' },
      { label: 'Mission stickers' },
      { label: 'Module channels' },
      { label: 'Notification messages' },
      { label: 'Video service' },
    ],
  },
  {
    title: 'App',
    areas: [
      { label: 'Emulator', page: 'emulator' },
      { label: 'Settings', page: 'settings' },
    ],
  },
];

export function Sidebar({
  page,
  onNavigate,
}: {
  page: PageId;
  onNavigate: (page: PageId) => void;
}) {
  return (
    <nav className="sidebar-nav" aria-label="Areas">
      {GROUPS.map((group) => (
        <section key={group.title}>
          <h2>{group.title}</h2>
          <ul>
            {group.areas.map((area) => (
              <li key={area.label}>
                {area.page ? (
                  <button
                    type="button"
                    className="nav-item"
                    aria-current={area.page === page ? 'page' : undefined}
                    onClick={() => area.page && onNavigate(area.page)}
                  >
                    {area.label}
                  </button>
                ) : (
                  <button
                    type="button"
                    className="nav-item"
                    disabled
                    title="Coming soon"
                    aria-label={`${area.label} (coming soon)`}
                  >
                    {area.label} <span className="soon">soon</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
