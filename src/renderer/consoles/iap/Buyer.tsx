// The buyer: a test user with an access token minted by the emulator, and the two things the
// platform judges about them (blocked as fraudulent, agreed to the latest terms).
import type { IapUserState } from '../../../core/platform/iap/schema';
import { CopyableId, CopyableSecret } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Panel } from '../../components/Panel';
import { useApi } from '../../lib/api-context';
import { useAction } from '../../lib/use-action';
import { Checkbox } from '../../components/Checkbox';

export interface BuyerState {
  accessToken: string;
  state: IapUserState;
}

export function Buyer({
  buyer,
  onChange,
}: {
  buyer: BuyerState | undefined;
  onChange: (buyer: BuyerState) => void;
}) {
  const api = useApi();
  const action = useAction();
  const set = (changes: { blocked?: boolean; termsAgreed?: boolean }) =>
    buyer &&
    void action.run(async () => {
      const state = await api.iap.setUser({ userId: buyer.state.userId, ...changes });
      onChange({ ...buyer, state });
    });
  return (
    <Panel title="Buyer">
      <div className="button-row">
        <button
          type="button"
          className={buyer ? undefined : 'primary'}
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              const user = await api.emulator.addUser({ displayName: 'Test buyer' });
              const token = await api.emulator.mintUserToken({
                userId: user.userId,
                scopes: ['openid', 'profile'],
              });
              const state = await api.iap.getUser({ userId: user.userId });
              onChange({ accessToken: token.accessToken, state });
            })
          }
        >
          Create a test buyer
        </button>
      </div>
      {buyer && (
        <>
          <dl className="facts" data-testid="iap-buyer">
            <dt>User ID</dt>
            <dd>
              <CopyableId value={buyer.state.userId} label="buyer user ID" />
            </dd>
            <dt>Access token</dt>
            <dd>
              <CopyableSecret value={buyer.accessToken} label="buyer access token" />
            </dd>
          </dl>
          <div className="button-row" role="group" aria-label="Buyer state">
            <Checkbox
              label="Agreed to the terms"
              checked={buyer.state.termsAgreed}
              onChange={(termsAgreed) => set({ termsAgreed })}
            />
            <Checkbox
              label="Blocked (fraud)"
              checked={buyer.state.blocked}
              onChange={(blocked) => set({ blocked })}
            />
          </div>
        </>
      )}
      <ErrorNotice error={action.error} />
    </Panel>
  );
}
