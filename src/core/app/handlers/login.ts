// Login console: every platform login operation as one recorded exchange, the local ID token
// inspector, and the emulator's authorization step and user data.
import { LoginConsole } from '../../usecases/consoles/login';
import type { loginOperations } from '../contracts/login';
import { consoleSetup } from './console-context';
import type { AppContext, AreaHandlers } from './context';

export function loginHandlers(ctx: AppContext): AreaHandlers<typeof loginOperations> {
  const login = new LoginConsole(consoleSetup(ctx));
  return {
    'login:context': () => login.context(),
    'login:send': (input) => login.send(input),
    'login:curl': async ({ exchangeId, reveal }) => login.curl(exchangeId, reveal),
    'login:inspectIdToken': (input) => login.inspectIdToken(input),
    'login:emulatorState': () => login.emulatorState(),
    'login:mintCode': (input) => login.mintCode(input),
    'login:saveChannel': (input) => login.saveChannel(input),
    'login:saveProfile': ({ userId, ...extras }) => login.saveProfile(userId, extras),
    'login:setFriendship': (input) => login.setFriendship(input),
    'login:tokenState': ({ accessToken }) => login.tokenState(accessToken),
  };
}
