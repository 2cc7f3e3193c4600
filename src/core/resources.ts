// Where the app's data files live (resources/sim, resources/profiles, resources/firmware): the
// repository's resources/ when running from sources, and the same folder found by walking up
// from the bundled code in a built or packaged app. DEVICEBENCH_RESOURCES overrides both.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findResources(): string {
  const override = process.env.DEVICEBENCH_RESOURCES;
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'resources', 'profiles'))) return join(dir, 'resources');
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(
        'DeviceBench cannot find its resources folder; set DEVICEBENCH_RESOURCES to it.',
      );
    dir = parent;
  }
}

export const RESOURCES_DIR = findResources();
