/**
 * Crash, outage, deploy and restart suite. `npm test` runs a small schedule; `npm run test:chaos`
 * runs the full one (KESOKU_CHAOS=full). Set KESOKU_CHAOS_SEED to replay a schedule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED_TRANSITIONS } from '../../domain/status-machine.ts';
import { runChaos } from './harness.ts';

const full = process.env.KESOKU_CHAOS === 'full';
const seed = Number(process.env.KESOKU_CHAOS_SEED ?? Date.now() % 1_000_000);
const plan = full
  ? {
      sessions: 6,
      turnsPerSession: 10,
      workerKills: 6,
      workerStops: 3,
      postgresOutages: 3,
      temporalRestarts: 2,
      budgetMs: 12 * 60_000,
    }
  : {
      sessions: 3,
      turnsPerSession: 4,
      workerKills: 2,
      workerStops: 1,
      postgresOutages: 1,
      temporalRestarts: 1,
      budgetMs: 4 * 60_000,
    };

describe('chaos: worker SIGKILLs, rolling restarts (SIGTERM), Postgres outages and Temporal restarts in the middle of turns', () => {
  it(
    `loses nothing and duplicates nothing (${full ? 'full' : 'small'} schedule, seed ${seed})`,
    async () => {
      const report = await runChaos({ ...plan, seed, log: (l) => process.stderr.write(`${l}\n`) });
      process.stderr.write(`[chaos] report ${JSON.stringify(report)}\n`);
      if (process.env.KESOKU_CHAOS_REPORT)
        fs.writeFileSync(process.env.KESOKU_CHAOS_REPORT, JSON.stringify(report, null, 2) + '\n');
      expect(report.accepted).toBe(report.submitted);
      expect(report.workerKills).toBe(plan.workerKills);
      expect(report.workerStops).toBe(plan.workerStops);
      // No command ran twice after kills, deploys or outages. Every tool call that completed ran its command once;
      // one interrupted after its start was recorded may have been killed before the command's first line ran.
      expect(report.reRuns).toBe(0);
      expect(report.commandsRun).toBeGreaterThanOrEqual(report.toolCallsCompleted);
      expect(report.commandsRun).toBeLessThanOrEqual(report.toolCalls - report.toolCallsNotStarted);
      expect(report.postgresOutages).toBe(plan.postgresOutages);
      expect(report.temporalRestarts).toBe(plan.temporalRestarts);
      expect(report.lost).toBe(0);
      expect(report.duplicated).toBe(0);
      expect(report.stuckProcessing).toBe(0);
      expect(report.repliesMissing).toBe(0);
      expect(report.undelivered).toBe(0);
      expect(report.processCrashes).toBe(0);
      const ended =
        (report.outcomes.processed ?? 0) + (report.outcomes.interrupted ?? 0) + (report.outcomes.error ?? 0);
      expect(ended).toBe(report.accepted);
    },
    plan.budgetMs + 180_000,
  );

  // A sweep would reset `processing` messages to `pending_agent` (docs/message-model.md §4.4 recover_orphaned_processing_messages).
  const ORPHAN_SWEEP = /recover_?orphan|orphan_?sweep|sweep_?orphan|SET\s+status\s*=\s*'pending_agent'/i;

  it('has no orphan-sweep code: nothing ever moves a message from processing back to pending_agent', () => {
    expect(ALLOWED_TRANSITIONS.processing).not.toContain('pending_agent');
    const root = path.join(import.meta.dirname, '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (['node_modules', '.git', '.kesoku', 'test', 'bench'].includes(e.name)) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (
          p.endsWith('.ts') &&
          !p.endsWith('.test.ts') &&
          ORPHAN_SWEEP.test(fs.readFileSync(p, 'utf8'))
        )
          offenders.push(path.relative(root, p));
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
