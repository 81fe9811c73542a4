/** `node bench/dist/run.js [name…]`: runs the named benchmarks (default: all) one after another. */
import * as analytics from './analytics';
import * as artifactMemory from './artifact-memory';
import * as fanoutFloor from './fanout-floor';
import * as gatewayAuth from './gateway-auth';
import * as ingestion from './ingestion';
import * as ingestMemory from './ingest-memory';
import * as reads from './reads';
import * as readsFloor from './reads-floor';
import * as reports from './reports';
import * as rpc from './rpc';
import * as web from './web';
import { printSummary } from './summary';
import * as webhookFanout from './webhook-fanout';

const benchmarks: Record<string, { run(): Promise<void> }> = {
  analytics,
  'artifact-memory': artifactMemory,
  'fanout-floor': fanoutFloor,
  'gateway-auth': gatewayAuth,
  ingestion,
  'ingest-memory': ingestMemory,
  reads,
  'reads-floor': readsFloor,
  reports,
  rpc,
  web,
  'webhook-fanout': webhookFanout,
};

async function main(): Promise<void> {
  const names = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : [process.env.BENCH ?? ''])
    .flatMap((n) => n.split(','))
    .filter(Boolean);
  const selected = names.length > 0 ? names : Object.keys(benchmarks);
  for (const name of selected) {
    const b = benchmarks[name];
    if (!b) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(benchmarks).join(', ')}`);
    console.log(`\n=== ${name}`);
    await b.run();
  }
  printSummary();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
