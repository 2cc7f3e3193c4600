// Provisioning as the app offers it: profiles (built in, or loaded and kept in the data dir),
// a PSDI plan per product, one board or a batch on the current BLE central (run.ts, as the CLI
// runs them), reconciliation of what a crash left unfinished (reconcile.ts), and the audit log —
// with progress as typed events the app's handlers pass on as the contract's.
import { EventEmitter } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { redactUrl } from '../../audit/postgres-connection';
import { InvalidTransitionError, RecordNotFoundError } from '../../audit/errors';
import { openAuditStore } from '../../audit/open-store';
import type { AuditStore, CopyResult } from '../../audit/store';
import type { AuditSettings, AuditSettingsInput } from '../audit-settings';
import type { ProvisioningRecord } from '../../audit/records';
import type { ReconcileOutcome } from '../../provisioning/reconcile';
import type { BatchSummary as CoreSummary } from '../../provisioning/batch';
import type { AnyProvisioningProfile } from '../../ble/provisioning-profile';
import { imageFromBase64 } from '../bench/board-firmware';
import type { Advertisement, BleCentral } from '../../ble/port';
import { builtInProfiles, parseProfile } from '../../provisioning/profiles';
import type { PsdiCsvProblem } from '../../audit/psdi';
import type { ProvisionEvent } from '../../provisioning/steps';
import type { ThingsClient } from '../../platform/things/client';
import { SetupError, UnreachableError } from '../errors';
import { findProfile, provisioningSetup, psdiAllocator, readPsdiPlan } from '../provisioning-setup';
import { profilesDir, readPlans, readSavedProfiles, writePlan, type Plan } from './settings';
import { errorMessage } from '../../errors/message';
import { batchSummary, progressOf, type Batch } from './batch-events';
import { reconcileRecord } from './reconcile';
import { provisionOne, startBatchRun, type ProvisioningRun } from './run';
import type { McubootImage } from '../../ble/mcumgr/image-file';
import type { batchSummarySchema, provisioningProgressSchema } from './schema';

type Progress = z.infer<typeof provisioningProgressSchema>;
type Summary = z.infer<typeof batchSummarySchema>;

/** Where provisioning takes its radio from: the app's BLE process. */
interface ProvisioningRadio {
  central(user: 'provisioning'): Promise<BleCentral>;
}

/** The boards the app has seen advertising, by the id the Provisioning page names them with. */
interface BoardsSeen {
  board(deviceId: string): Advertisement;
}

export class ProvisioningService extends EventEmitter<{ progress: [Progress]; batch: [Summary] }> {
  private readonly batches = new Map<string, Batch>();
  private loaded = new Map<string, { profile: AnyProvisioningProfile; source: string }>();
  private nextRun = 0;
  private opened: AuditStore | undefined;
  /** Why the configured log could not be opened, while it cannot. */
  private openError: string | undefined;
  private opening: Promise<AuditStore> | undefined;

  private constructor(
    private readonly dataDir: string,
    readonly audit: AuditSettings,
    private readonly supervisor: ProvisioningRadio,
    private readonly scans: BoardsSeen,
    private readonly things: () => Promise<ThingsClient>,
  ) {
    super();
  }

  static async open(options: {
    dataDir: string;
    audit: AuditSettings;
    supervisor: ProvisioningRadio;
    scans: BoardsSeen;
    things: () => Promise<ThingsClient>;
  }): Promise<ProvisioningService> {
    const service = new ProvisioningService(
      options.dataDir,
      options.audit,
      options.supervisor,
      options.scans,
      options.things,
    );
    await service.loadSavedProfiles();
    // A shared log that is down at start is not fatal: the app opens, provisioning says why it
    // waits, and the next call tries again.
    await service.store().catch(() => undefined);
    return service;
  }

  // ---- the audit log ----

  /** The configured log, opened on first use and again after it could not be. */
  async store(): Promise<AuditStore> {
    if (this.opened) return this.opened;
    this.opening ??= (async () => {
      const { location, station } = await this.audit.resolve();
      try {
        const store = await openAuditStore({ location, station });
        this.opened = store;
        this.openError = undefined;
        return store;
      } catch (err) {
        this.openError = errorMessage(err);
        throw new UnreachableError(`the audit log could not be opened: ${this.openError}`);
      } finally {
        this.opening = undefined;
      }
    })();
    return this.opening;
  }

  /** What the settings page shows about the log in use. */
  async auditState() {
    const resolved = await this.audit.resolve();
    let available = false;
    let error = this.openError;
    if (this.opened) {
      try {
        await this.opened.ping();
        available = true;
      } catch (err) {
        error = errorMessage(err);
      }
    }
    return {
      engine: resolved.location.kind === 'local' ? ('sqlite' as const) : ('postgres' as const),
      location: this.opened?.location ?? describeLocation(resolved.location),
      station: resolved.station,
      available,
      error: available ? undefined : error,
      fromEnvironment: resolved.fromEnvironment,
    };
  }

  /**
   * Opens the log the new settings name before keeping them, so a wrong URL or password is
   * refused on its field and the station goes on with the log it had.
   */
  async switchAudit(input: AuditSettingsInput): Promise<void> {
    if (this.listBatches().some((b) => b.state === 'running' || b.state === 'stopping'))
      throw new SetupError('mode', 'a batch is running: stop it before changing the audit log');
    const prepared = await this.audit.prepare(input);
    let next: AuditStore;
    try {
      next = await openAuditStore({
        location: prepared.resolved.location,
        station: prepared.resolved.station,
      });
    } catch (err) {
      throw new SetupError(
        input.mode === 'shared' ? 'url' : 'mode',
        `could not open the audit log: ${errorMessage(err)}`,
      );
    }
    await this.audit.commit(prepared);
    const previous = this.opened;
    this.opened = next;
    this.openError = undefined;
    await previous?.close().catch(() => undefined);
  }

  /**
   * Copies this machine's records into the shared log in use, once: each copy is keyed on the
   * local log's id and the record's, so running it again copies nothing twice.
   */
  async copyLocalToShared(): Promise<CopyResult> {
    const shared = await this.store();
    if (shared.engine !== 'postgres')
      throw new SetupError(
        'mode',
        'choose a shared PostgreSQL log first; this machine’s log is in use',
      );
    const local = await openAuditStore({
      location: { kind: 'local', file: this.audit.localFile },
      station: shared.station,
    });
    try {
      const sourceId = await local.sourceId();
      const total: CopyResult = { copied: 0, alreadyCopied: 0, refused: [] };
      for (let after = 0; ;) {
        const page = await local.records(after, 500);
        if (!page.length) return total;
        const result = await shared.copyFrom(sourceId, page);
        total.copied += result.copied;
        total.alreadyCopied += result.alreadyCopied;
        total.refused.push(...result.refused);
        after = (page[page.length - 1] as ProvisioningRecord).id;
      }
    } finally {
      await local.close();
    }
  }

  // ---- profiles ----

  profiles(): { profile: AnyProvisioningProfile; source: string }[] {
    const builtIn = builtInProfiles().map((profile) => ({ profile, source: 'built in' }));
    const ids = new Set(builtIn.map((p) => p.profile.id));
    return [...builtIn, ...[...this.loaded.values()].filter((p) => !ids.has(p.profile.id))];
  }

  profile(id: string): AnyProvisioningProfile {
    return findProfile(this.knownProfiles(), id);
  }

  private knownProfiles(): AnyProvisioningProfile[] {
    return this.profiles().map((p) => p.profile);
  }

  /** Validates a profile file and keeps it in the data dir so it is there next time. */
  async loadProfile(fileName: string, text: string) {
    const profile = parseProfile(text, fileName);
    if (builtInProfiles().some((p) => p.id === profile.id))
      throw new SetupError('id', `"${profile.id}" is a built-in profile; give yours another id`);
    await mkdir(profilesDir(this.dataDir), { recursive: true });
    await writeFile(join(profilesDir(this.dataDir), `${profile.id}.json`), text);
    this.loaded.set(profile.id, { profile, source: fileName });
    return { profile, source: fileName };
  }

  private async loadSavedProfiles(): Promise<void> {
    for (const saved of await readSavedProfiles(this.dataDir))
      this.loaded.set(saved.profile.id, saved);
  }

  // ---- plans ----

  async plan(productId: string): Promise<Plan | null> {
    return (await readPlans(this.dataDir)).plans[productId] ?? null;
  }

  async savePlan(plan: Plan): Promise<Plan> {
    readPsdiPlan(plan.psdi, this.profile(plan.profileId));
    await writePlan(this.dataDir, plan);
    return plan;
  }

  /**
   * What the plan hands out next (a draft plan too), taking nothing; null for a device PSDI.
   * With the CSV rows the list leaves out, so the page shows them before anything is reserved.
   */
  async nextPsdi(plan: Plan): Promise<{ psdi: string | null; skipped?: PsdiCsvProblem[] }> {
    const { psdi: allocator, skipped } = psdiAllocator(this.profile(plan.profileId), plan.psdi);
    if (!allocator) return { psdi: null };
    const psdi = await (await this.store()).peekPsdi(plan.productId, allocator);
    return skipped.length ? { psdi, skipped } : { psdi };
  }

  private async setup(productId: string) {
    const plan = await this.plan(productId);
    if (!plan)
      throw new SetupError(
        'productId',
        'has no provisioning plan yet: choose a profile and a PSDI plan and save them first',
      );
    const setup = await provisioningSetup({
      productId,
      plan,
      profiles: this.knownProfiles(),
      things: await this.things(),
    });
    return { ...setup, central: await this.supervisor.central('provisioning') };
  }

  /** What one board or a batch of the product runs with: its plan set up on this station. */
  private async run(productId: string, image?: McubootImage): Promise<ProvisioningRun> {
    const { profile, product, psdi, central } = await this.setup(productId);
    return {
      central,
      store: await this.store(),
      profile,
      product,
      psdi,
      knownProfiles: this.knownProfiles(),
      ...(image && { image }),
    };
  }

  // ---- runs ----

  async provisionOne(productId: string, deviceId: string) {
    const board = this.scans.board(deviceId);
    const run = await this.run(productId);
    const runId = `run-${++this.nextRun}`;
    const result = await provisionOne(run, board, {
      onProgress: (event) => this.progress(runId, event),
    });
    return { runId, record: result.record };
  }

  async startBatch(input: {
    productId: string;
    concurrency: number;
    name?: string;
    minRssi?: number;
    limit?: number;
    onlyMatching?: boolean;
    /** An MCUboot image (base64) flashed to each board before it is provisioned. */
    image?: string;
  }): Promise<Summary> {
    const image = input.image === undefined ? undefined : imageFromBase64(input.image);
    const setup = await this.run(input.productId, image);
    const { product } = setup;
    const runId = `batch-${++this.nextRun}`;
    const batch: Batch = {
      product: { id: product.id, name: product.name },
      mostTaken: 0,
      startedAt: Date.now(),
      stopping: false,
    };
    const run = startBatchRun(setup, {
      concurrency: input.concurrency,
      name: input.name,
      minRssi: input.minRssi,
      limit: input.limit,
      onlyMatching: input.onlyMatching,
      onEvent: (event) => {
        if (event.type === 'progress') this.progress(runId, event.event);
        if (event.type === 'board' && event.status.matchingProfiles)
          this.emit('progress', {
            runId,
            deviceId: event.status.board.id,
            address: event.status.board.address,
            name: event.status.board.name,
            step: event.status.step ?? 'discover',
            phase: 'skipped',
            message: event.status.skipReason,
            at: Date.now(),
          });
        if (event.type === 'finished') batch.finishedAt = Date.now();
        this.emit(
          'batch',
          this.summary(runId, batch, event.type === 'finished' ? event.summary : undefined),
        );
      },
    });
    batch.run = run;
    this.batches.set(runId, batch);
    void run.done.then((summary) => {
      batch.finishedAt ??= Date.now();
      this.emit('batch', this.summary(runId, batch, summary));
    });
    return this.summary(runId, batch);
  }

  async stopBatch(runId: string): Promise<Summary> {
    const batch = this.batches.get(runId);
    if (!batch) throw new SetupError('runId', `no batch ${runId}`);
    batch.stopping = true;
    this.emit('batch', this.summary(runId, batch));
    const summary = await batch.run?.stop();
    batch.finishedAt ??= Date.now();
    return this.summary(runId, batch, summary);
  }

  listBatches(): Summary[] {
    return [...this.batches]
      .map(([runId, batch]) => this.summary(runId, batch))
      .sort((a, b) => b.startedAt - a.startedAt);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.batches.values()].map((b) => b.run?.stop({ cut: true })));
  }

  async listUnfinished(): Promise<ProvisioningRecord[]> {
    return (await this.store()).listUnfinished();
  }

  async reconcile(recordId: number, action: 'finish' | 'release'): Promise<ReconcileOutcome> {
    return reconcileRecord({
      central: () => this.supervisor.central('provisioning'),
      store: await this.store(),
      profiles: this.knownProfiles(),
      recordId,
      whenBlank: action,
    });
  }

  /**
   * The operator gives back the PSDI a failed record holds (the board was checked and does not
   * carry it): logged on the record with the OS user and this station.
   */
  async releasePsdi(recordId: number, reason: string): Promise<ProvisioningRecord> {
    const store = await this.store();
    try {
      return await store.releaseHeld(recordId, { reason, by: userInfo().username });
    } catch (err) {
      if (err instanceof RecordNotFoundError || err instanceof InvalidTransitionError)
        throw new SetupError('recordId', err.message);
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.opened?.close();
    this.opened = undefined;
  }

  private summary(runId: string, batch: Batch, done?: CoreSummary): Summary {
    return batchSummary(runId, batch, done);
  }

  private progress(runId: string, event: ProvisionEvent): void {
    this.emit('progress', progressOf(runId, event));
  }
}

function describeLocation(
  location: { kind: 'local'; file: string } | { kind: 'postgres'; url: string },
): string {
  return location.kind === 'local' ? location.file : redactUrl(location.url);
}
