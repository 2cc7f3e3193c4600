// A scenario set's lint, the same for the editor and `devicebench scenario lint`: the set's own
// rules, then, given the board's GATT table, what its actions need of that board.
import { lintAgainstBoard } from '../../scenario/board-lint';
import { setRules } from '../../scenario/rules';
import type { Finding } from '../../scenario/schema';
import type { ScenarioSetInput } from '../../platform/things/schema';
import type { BoardTable } from './board-read';

export function lintSet(set: ScenarioSetInput, board?: BoardTable): Finding[] {
  return [...setRules(set), ...(board ? lintAgainstBoard(set, board) : [])];
}
