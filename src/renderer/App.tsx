// The shell: areas on the left, the environment switcher above them, the chosen page, and
// the status bar. Pages are keyed by the active environment so switching reloads their data;
// the page and the chosen product live in the URL (lib/navigation.ts). Pairing prompts from the
// BLE process show over every page (components/PairingPrompts.tsx).
import { Fragment, useCallback } from 'react';
import { EnvironmentSwitcher } from './components/EnvironmentSwitcher';
import { LoadFailure } from './components/LoadFailure';
import { PairingPrompts } from './components/PairingPrompts';
import { Sidebar } from './components/Sidebar';
import { StatusBar } from './components/StatusBar';
import { RouteContext, useHashRoute } from './lib/navigation';
import { useActivityFeed } from './lib/use-activity';
import { useLoad } from './lib/use-load';
import { PAGE_GROUPS, START_PAGE } from './pages';
import { Settings } from './pages/Settings';

const PAGES = new Map(PAGE_GROUPS.flatMap((g) => g.pages).map((p) => [p.id, p]));
const isPage = (id: string) => PAGES.has(id);

export function App() {
  const routing = useHashRoute(START_PAGE, isPage);
  const { page } = routing.route;
  const environments = useLoad((api) => api.settings.listEnvironments({}), []);
  const status = useLoad((api) => api.app.getStatus({}), []);
  const feed = useActivityFeed();
  const activeId = environments.value?.activeId;
  const render = PAGES.get(page)?.render;

  const { reload: reloadEnvironments } = environments;
  const { reload: reloadStatus } = status;
  const environmentsChanged = useCallback(() => {
    reloadEnvironments();
    reloadStatus();
  }, [reloadEnvironments, reloadStatus]);

  return (
    <RouteContext value={routing}>
      <div className="shell">
        <aside className="sidebar">
          <div className="brand">DeviceBench</div>
          <EnvironmentSwitcher
            activeId={activeId}
            environments={environments.value?.environments ?? []}
            onSwitched={environmentsChanged}
          />
          <Sidebar page={page} onNavigate={routing.navigate} />
        </aside>
        <main className="content">
          {environments.error !== undefined && !environments.value ? (
            <LoadFailure error={environments.error} onRetry={environments.reload} />
          ) : activeId === undefined ? (
            <p className="note" role="status">
              Loading environments…
            </p>
          ) : render ? (
            <Fragment key={activeId}>{render()}</Fragment>
          ) : (
            <Settings
              activeId={activeId}
              environments={environments.value?.environments ?? []}
              status={status.value}
              onChanged={environmentsChanged}
            />
          )}
        </main>
        <PairingPrompts />
        <StatusBar
          status={status.value}
          statusError={status.error}
          requestCount={feed.count}
          lastRequest={feed.last}
        />
      </div>
    </RouteContext>
  );
}
