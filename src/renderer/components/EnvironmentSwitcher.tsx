// Chooses which platform (the local emulator or a custom one) every console talks to.
import type { EnvironmentView } from '../../core/app/contract';
import { useApi } from '../lib/api-context';
import { useAction } from '../lib/use-action';
import { ErrorNotice } from './ErrorNotice';

interface EnvironmentSwitcherProps {
  activeId: string | undefined;
  environments: readonly EnvironmentView[];
  onSwitched: () => void;
}

export function EnvironmentSwitcher({
  activeId,
  environments,
  onSwitched,
}: EnvironmentSwitcherProps) {
  const api = useApi();
  const { busy, error, run } = useAction();

  async function select(id: string) {
    await run(async () => {
      await api.settings.selectEnvironment({ id });
      onSwitched();
    });
  }

  return (
    <div className="env-switcher">
      <label htmlFor="environment-select">Environment</label>
      <select
        id="environment-select"
        value={activeId ?? ''}
        disabled={busy || environments.length === 0}
        onChange={(event) => void select(event.target.value)}
      >
        {activeId === undefined && <option value="">Loading…</option>}
        {environments.map((env) => (
          <option key={env.id} value={env.id}>
            {env.name}
          </option>
        ))}
      </select>
      <ErrorNotice error={error} />
    </div>
  );
}
