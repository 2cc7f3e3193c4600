// Provisioning as the app offers it: profiles (built in, or loaded and kept in the data dir),
// a PSDI plan per product, one board or a batch on the current BLE central, reconciliation of
// what a crash left unfinished, and the audit log — with progress as events.
import { EventEmitter } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { openAuditStore, type AuditStore } from '../../audit/store';
import type { ProvisioningRecord } from '../../audit/records';
import {
  startBatch,
  type BatchRun,
  type BatchSummary as CoreSummary,
} from '../../provisioning/batch';
import type { ProvisioningProfile } from '../../provisioning/profile';
import { builtInProfiles, parseProfile } from '../../provisioning/profiles';
import { createPsdiAllocator } from '../../provisioning/psdi';
import { reconcile } from '../../provisioning/reconcile';
import type { ProvisionEvent } from '../../provisioning/steps';
import { provisionBoard, type ProductTarget } from '../../provisioning/workflow';
import type { ThingsClient } from '../../platform/things/client';
import type { batchSummarySchema, provisioningProgressSchema } from '../contracts/ble';
import { AppFailure } from '../errors';
import type { HostSupervisor } from './host-supervisor';
import {
  planStrategy,
  profilesDir,
  readPlans,
  readSavedProfiles,
  writePlans,
  type Plan,
} from './provisioning-settings';
import type { ScanFeed } from './scan-feed';

type Progress = z.infer<typeof provisioningProgressSchema>;
type Summary = z.infer<typeof batchSummarySchema>;

interface Batch {
  /** Set as soon as startBatch returns; its first events can come before. */
  run?: BatchRun;
  startedAt: number;
  finishedAt?: number;
  stopping: boolean;
}

export class ProvisioningService extends EventEmitter<{ progress: [Progress]; batch: [Summary] }> {
  private readonly batches = new Map<string, Batch>();
  private loaded = new Map<string, { profile: ProvisioningProfile; source: string }>();
  private nextRun = 0;

  private constructor(
    private readonly dataDir: string,
    readonly store: AuditStore,
    private readonly supervisor: HostSupervisor,
    private readonly scans: ScanFeed,
    private readonly things: () => Promise<ThingsClient>,
  ) {
    super();
  }

  static async open(options: {
    dataDir: string;
    supervisor: HostSupervisor;
    scans: ScanFeed;
    things: () => Promise<ThingsClient>;
  }): Promise<ProvisioningService> {
    const store = openAuditStore({ file: join(options.dataDir, 'audit.sqlite') });
    const service = new ProvisioningService(
      options.dataDir,
      store,
      options.supervisor,
      options.scans,
      options.things,
    );
    await service.loadSavedProfiles();
    return service;
  }

  // ---- profiles ----

  profiles(): { profile: ProvisioningProfile; source: string }[] {
    const builtIn = builtInProfiles().map((profile) => ({ profile, source: 'built in' }));
    const ids = new Set(builtIn.map((p) => p.profile.id));
    return [...builtIn, ...[...this.loaded.values()].filter((p) => !ids.has(p.profile.id))];
  }

  profile(id: string): ProvisioningProfile {
    const found = this.profiles().find((p) => p.profile.id === id);
    if (!found) throw AppFailure.field('profileId', `no provisioning profile "${id}"`);
    return found.profile;
  }

  /** Validates a profile file and keeps it in the data dir so it is there next time. */
  async loadProfile(fileName: string, text: string) {
    const profile = parseProfile(text, fileName);
    if (builtInProfiles().some((p) => p.id === profile.id))
      throw AppFailure.field('id', `"${profile.id}" is a built-in profile; give yours another id`);
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
    planStrategy(plan.psdi, this.profile(plan.profileId));
    const file = await readPlans(this.dataDir);
    file.plans[plan.productId] = plan;
    await writePlans(this.dataDir, file);
    return plan;
  }

  private async setup(productId: string) {
    const plan = await this.plan(productId);
    if (!plan)
      throw AppFailure.field(
        'productId',
        'has no provisioning plan yet: choose a profile and a PSDI plan and save them first',
      );
    const profile = this.profile(plan.profileId);
    const products = await (await this.things()).listTrialProducts();
    const found = products.find((p) => p.id === productId);
    if (!found)
      throw AppFailure.field('productId', `no trial product ${productId} in this environment`);
    const product: ProductTarget = {
      id: found.id,
      name: found.name,
      serviceUuid: found.serviceUuid,
      psdiServiceUuid: found.psdiServiceUuid,
      psdiCharacteristicUuid: found.psdiCharacteristicUuid,
    };
    const psdi =
      profile.psdi.source === 'tool'
        ? createPsdiAllocator(planStrategy(plan.psdi, profile), profile.psdi.maxBytes)
        : undefined;
    return { profile, product, psdi, central: await this.supervisor.central() };
  }

  // ---- runs ----

  async provisionOne(productId: string, deviceId: string) {
    const board = this.scans.board(deviceId);
    const { profile, product, psdi, central } = await this.setup(productId);
    const runId = `run-${++this.nextRun}`;
    const result = await provisionBoard({
      central,
      store: this.store,
      profile,
      product,
      board,
      psdi,
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
  }): Promise<Summary> {
    const { profile, product, psdi, central } = await this.setup(input.productId);
    const runId = `batch-${++this.nextRun}`;
    const batch: Batch = { startedAt: Date.now(), stopping: false };
    const run = startBatch({
      central,
      store: this.store,
      profile,
      product,
      psdi,
      concurrency: input.concurrency,
      nameFilter: input.name,
      minRssi: input.minRssi,
      maxBoards: input.limit,
      onEvent: (event) => {
        if (event.type === 'progress') this.progress(runId, event.event);
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
    if (!batch) throw AppFailure.field('runId', `no batch ${runId}`);
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

  listUnfinished(): ProvisioningRecord[] {
    return this.store.listUnfinished();
  }

  async reconcile(recordId: number, action: 'finish' | 'release'): Promise<ProvisioningRecord> {
    const record = this.store.get(recordId);
    if (!record) throw AppFailure.field('recordId', `no record ${recordId}`);
    const outcome = await reconcile({
      central: await this.supervisor.central(),
      store: this.store,
      profile: this.profile(record.profileId),
      record,
      whenBlank: action,
    });
    if (outcome.action === 'not-found')
      throw new AppFailure({ code: 'not_configured', message: outcome.message });
    return outcome.record;
  }

  close(): void {
    this.store.close();
  }

  private summary(runId: string, batch: Batch, done?: CoreSummary): Summary {
    // Boards seen but not taken on (filtered out, over the limit, stopped) are not the batch's.
    const boards = (done?.boards ?? batch.run?.boards() ?? []).filter((b) => b.state !== 'skipped');
    return {
      runId,
      state: batch.finishedAt
        ? done?.stopped || batch.stopping
          ? 'stopped'
          : 'finished'
        : batch.stopping
          ? 'stopping'
          : 'running',
      total: boards.length,
      succeeded: boards.filter((b) => b.state === 'verified').length,
      failed: boards.filter((b) => b.state === 'failed').length,
      inFlight: boards.filter((b) => b.state === 'running').length,
      startedAt: batch.startedAt,
      finishedAt: batch.finishedAt,
    };
  }

  private progress(runId: string, event: ProvisionEvent): void {
    const base = { runId, deviceId: event.board.id, address: event.board.address, at: event.at };
    switch (event.type) {
      case 'step-started':
        return void this.emit('progress', {
          ...base,
          step: event.step,
          phase: 'started',
          attempt: event.attempt,
        });
      case 'step-finished':
        return void this.emit('progress', {
          ...base,
          step: event.step,
          phase: 'finished',
          attempt: event.attempt,
        });
      case 'step-failed':
        return void this.emit('progress', {
          ...base,
          step: event.step,
          phase: event.willRetry ? 'retrying' : 'failed',
          attempt: event.attempt,
          message: event.error,
        });
      case 'record':
        return void this.emit('progress', {
          ...base,
          step: 'record',
          phase:
            event.record.state === 'verified'
              ? 'done'
              : event.record.state === 'failed'
                ? 'failed'
                : 'finished',
          psdi: event.record.psdi,
          recordId: event.record.id,
          message: event.record.error ?? `record ${event.record.state}`,
        });
    }
  }
}
