// Import rules `npm run lint` enforces (docs/decisions.md, "Layers and import rules").
// Paths match `src/...` anywhere in a path, so test/lint/fixtures can plant a small src tree
// that breaks each rule on purpose.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Modules form layers; a cycle means two of them are one module split in two.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-not-to-emulator',
      comment:
        "platform/ holds the platform's shapes and clients; the emulator builds on them, never the reverse.",
      severity: 'error',
      from: { path: '(^|/)src/core/platform/' },
      to: { path: '(^|/)src/core/emulator/' },
    },
    {
      name: 'core-framework-free',
      comment: 'src/core runs in Node, the CLI and the browser build: no Electron, no React.',
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: {
        path: [
          '(^|/)node_modules/(electron|react|react-dom)/',
          '(^|/)src/(main|renderer|preload)/',
        ],
      },
    },
    {
      name: 'core-not-to-app',
      comment:
        'core/app/ composes the core into the app (scenarios, provisioning, the BLE process); the layers below it never import it.',
      severity: 'error',
      from: { path: '(^|/)src/core/', pathNot: '(^|/)src/core/app/' },
      to: { path: '(^|/)src/core/app/' },
    },
    {
      name: 'core-not-to-usecases',
      comment:
        'core/usecases/ holds what the app and the CLI each do once (a dry run) over the core; the layers below it never import it, and it never imports core/app/ (core-not-to-app).',
      severity: 'error',
      from: { path: '(^|/)src/core/', pathNot: '(^|/)src/core/(app|usecases)/' },
      to: { path: '(^|/)src/core/usecases/' },
    },
    {
      name: 'ble-not-to-provisioning',
      comment:
        'ble/ (the simulated bench included) is below provisioning: what both need, such as the provisioning profile, lives in ble/.',
      severity: 'error',
      from: { path: '(^|/)src/core/ble/' },
      to: { path: '(^|/)src/core/provisioning/' },
    },
    {
      name: 'radio-under-host',
      comment:
        'ble/radio/ opens a central from an adapter spec for whoever holds it (the BLE process, the CLI, the benchmarks): it never knows the BLE process (docs/architecture.md, "Opening the radio").',
      severity: 'error',
      from: { path: '(^|/)src/core/ble/radio/' },
      to: { path: '(^|/)src/core/ble/host/' },
    },
    {
      name: 'hci-and-sim-under-radio',
      comment:
        'The HCI layer and the simulated bench are what ble/radio/ opens centrals over: they never import the centrals or their openers.',
      severity: 'error',
      from: { path: '(^|/)src/core/ble/(hci|sim)/' },
      to: { path: '(^|/)src/core/ble/radio/' },
    },
    {
      name: 'core-not-to-entry-points',
      comment: 'The CLI and the bench server are entry points over the core, never under it.',
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: { path: '(^|/)src/(cli|server)/' },
    },
    {
      name: 'platform-foundation',
      comment:
        "platform/ is the platform's shapes and clients: it builds only on itself and the core's leaves (bytes, errors, bounds, webhook shapes).",
      severity: 'error',
      from: { path: '(^|/)src/core/platform/' },
      to: {
        path: '(^|/)src/core/',
        pathNot: [
          '(^|/)src/core/(platform|errors|async|webhooks)/',
          // platform-not-to-emulator names that one.
          '(^|/)src/core/emulator/',
          '(^|/)src/core/(bytes|bounds|whole-number)\\.ts$',
        ],
      },
    },
    {
      name: 'webhooks-foundation',
      comment:
        "webhooks/ (the signed envelope, its sender and a receiver) sits under platform/, which imports its shapes: it builds only on itself, the network helpers and the core's leaves.",
      severity: 'error',
      from: { path: '(^|/)src/core/webhooks/' },
      to: {
        path: '(^|/)src/core/',
        pathNot: [
          '(^|/)src/core/(webhooks|errors|async|net)/',
          '(^|/)src/core/(bytes|bounds|whole-number)\\.ts$',
        ],
      },
    },
    {
      name: 'cli-not-to-app',
      comment:
        'The CLI stands on core/usecases/, never on the app\'s composition in core/app/ (docs/architecture.md, "Layers"; docs/decisions/tooling.md, "The use-case floor").',
      severity: 'error',
      from: { path: '(^|/)src/cli/' },
      to: { path: '(^|/)src/core/app/' },
    },
    {
      name: 'cli-over-usecases',
      comment:
        'A command maps flags and reports onto use cases: from the core it imports core/usecases/, and anything else only as a type; its own helpers in src/cli/ stay open. Beside the floor, only leaves every front end reads the same way: the audit record\'s words (audit/records.ts, which the renderer and the CSV read too), how an error is said (errors/message.ts), where the shipped files are (resources.ts), the text form of an adapter the flags take (ble/adapter-spec.ts) and how a signal strength is shown (ble/rssi.ts) (docs/decisions/tooling.md, "The use-case floor"); core/app/ is cli-not-to-app\'s.',
      severity: 'error',
      from: { path: '(^|/)src/cli/' },
      to: {
        path: '(^|/)src/core/',
        pathNot: [
          '(^|/)src/core/usecases/',
          '(^|/)src/core/app/',
          '(^|/)src/core/audit/records\\.ts$',
          '(^|/)src/core/(errors/message|resources|ble/adapter-spec|ble/rssi)\\.ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'handlers-over-usecases',
      comment:
        'A handler maps the contract onto use cases: besides core/usecases/ it imports only the contract, its fellow handlers, the app\'s errors and its own area\'s platform client (a console whose every operation is one call of that client: docs/decisions/tooling.md, "The use-case floor"), and anything else only as a type.',
      severity: 'error',
      from: {
        path: '(^|/)src/core/app/handlers/([^/]+)\\.ts$',
      },
      to: {
        path: '(^|/)src/core/',
        pathNot: [
          '(^|/)src/core/usecases/',
          '(^|/)src/core/app/(handlers|contracts)/',
          '(^|/)src/core/app/(contract|errors)\\.ts$',
          '(^|/)src/core/platform/$2/client\\.ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'renderer-not-to-emulator-internals',
      comment: 'The renderer reaches the emulator through the contract; it shares only its shapes.',
      severity: 'error',
      from: { path: '(^|/)src/renderer/' },
      to: {
        path: '(^|/)src/core/emulator/',
        pathNot: '(^|/)src/core/emulator/schema\\.ts$',
      },
    },
    {
      name: 'console-not-to-other-console',
      comment:
        "A console's folder is its own room: shared controls live in components/, not in another console.",
      severity: 'error',
      from: { path: '(^|/)src/renderer/consoles/([^/]+)/' },
      to: {
        path: '(^|/)src/renderer/consoles/[^/]+/',
        pathNot: '(^|/)src/renderer/consoles/$2/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
    },
  },
};
