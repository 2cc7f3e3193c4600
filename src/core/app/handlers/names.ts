// Names and value formats the user gives UUIDs, kept in the data directory.
import type { namesOperations } from '../contracts/names';
import { NameStore } from '../../usecases/bench/name-store';
import type { AppContext, AreaHandlers } from './context';

export function namesHandlers(ctx: AppContext): AreaHandlers<typeof namesOperations> {
  const names = new NameStore(ctx.options.dataDir);
  return {
    'names:get': ({ scope }) => names.get(scope),
    'names:setName': ({ scope, uuid, name }) => names.setName(scope, uuid, name),
    'names:setFormat': ({ scope, uuid, format }) => names.setFormat(scope, uuid, format),
  };
}
