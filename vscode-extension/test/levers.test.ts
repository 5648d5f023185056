import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS, SERVER_COMMANDS, STATE_KEYS, type MeasureResult } from '../src/core';
import { Uri } from './fake-vscode';
import { harness } from './helpers';
import pkg from '../package.json';

const WS = path.resolve('/work/project');
const LEDGER_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'warp-ct-levers-test-'));
const LEDGER = path.join(LEDGER_DIR, 'levers.html');
fs.writeFileSync(LEDGER, '<!doctype html><html><head><title>l</title></head><body><svg></svg>ledger</body></html>');
after(() => fs.rmSync(LEDGER_DIR, { recursive: true, force: true }));

const LEDGER_RESULT: MeasureResult = {
  ok: true,
  summary: '2 levers measured; improved: backward -52%',
  jsonPath: path.join(LEDGER_DIR, 'levers.json'),
  htmlPath: LEDGER,
};

async function leversHarness(result: unknown = LEDGER_RESULT) {
  const h = await harness({
    before: (f) => {
      f.workspaceFolders = [{ uri: Uri.file(WS), name: 'project', index: 0 }];
      f.openPythonFile(path.join(WS, 'sim.py'));
      f.inputBoxAnswers = ['python3 sim.py'];
    },
  });
  h.handlers.set(SERVER_COMMANDS.measureLevers, () => result);
  return h;
}

describe('Warp: Measure option levers', () => {
  it('is contributed with its title', () => {
    const command = pkg.contributes.commands.find((c: { command: string }) => c.command === COMMANDS.measureLevers);
    assert.ok(command);
    assert.equal(`${command.category}: ${command.title}`, 'Warp: Measure option levers');
  });

  it('sends warp-ct.measureLevers with the measure command, shows progress and the ledger in its own panel', async () => {
    const h = await leversHarness();
    await h.fake.commands.get(COMMANDS.measureLevers)!();
    const requests = h.clients.flatMap((c) => c.requests).filter((r) => r.params.command === SERVER_COMMANDS.measureLevers);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0].params.arguments, [['python3', 'sim.py'], WS, 3]);
    const [progress] = h.fake.progress;
    assert.equal(progress.options.cancellable, true);
    assert.match(progress.options.title ?? '', /measuring option levers of `python3 sim.py`/);
    const [panel] = h.fake.webviewPanels;
    assert.equal(panel.title, 'Warp: option levers');
    assert.match(panel.webview.html, /<svg><\/svg>ledger/);
    assert.equal(h.fake.messagesOf('info').at(-1)!.message, `Warp: ${LEDGER_RESULT.summary}`);
    // A ledger is not the last cold/warm measurement of the status bar.
    assert.equal(h.context.workspaceState.get(STATE_KEYS.lastMeasurement), undefined);
  });

  it('reports a failed ledger as an error', async () => {
    const h = await leversHarness({ ok: false, summary: 'The measurement failed: command not found: python3' });
    await h.fake.commands.get(COMMANDS.measureLevers)!();
    assert.equal(h.fake.webviewPanels.length, 0);
    assert.match(h.fake.messagesOf('error').at(-1)!.message, /command not found/);
  });
});
