#!/usr/bin/env node
// The `devicebench` command from a checkout (`npx devicebench …`, the package's `bin`): runs
// the TypeScript entry through tsx's loader, so there is nothing to build first.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
