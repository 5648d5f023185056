import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { COMMANDS, formatMeasurement, SERVER_COMMANDS, STATE_KEYS, type MeasureResult } from '../src/core';
import { makeContext, Uri, type fake as FakeType } from './fake-vscode';
import { harness, type Harness } from './helpers';
import pkg from '../package.json';

const WS = path.resolve('/work/project');
const FILE = path.join(WS, 'examples', 'sim.py');

const REPORT_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'warp-ct-measure-test-'));
const TIMELINE = path.join(REPORT_DIR, 'report.html');
fs.writeFileSync(TIMELINE, '<!doctype html><html><head><title>t</title></head><body><svg></svg>timeline</body></html>');
// Runs once every test in this file has finished, whether they passed or not.
after(() => fs.rmSync(REPORT_DIR, { recursive: true, force: true }));

const OK: MeasureResult = {
  ok: true,
  summary: 'cold 4.2 s / warm 0.3 s; 3 modules built, 1 rebuilt per run (sim.py:12)',
  coldWallS: 4.2,
  warmWallS: 0.31,
  jsonPath: '/tmp/warp-ct/report.json',
  htmlPath: TIMELINE,
  diagnoses: ['sim.py:12 kernel `step` is rebuilt every run'],
};

function project(f: typeof FakeType): void {
  f.workspaceFolders = [{ uri: Uri.file(WS), name: 'project', index: 0 }];
  f.openPythonFile(FILE);
}

async function measuring(options: { before?: (f: typeof FakeType) => void; context?: ReturnType<typeof makeContext>; result?: unknown } = {}) {
  const h = await harness({
    context: options.context,
    before: (f) => {
      project(f);
      options.before?.(f);
    },
  });
  h.handlers.set(SERVER_COMMANDS.measure, () => options.result ?? OK);
  return h;
}

function measureRequests(h: Harness) {
  return h.clients.flatMap((c) => c.requests).filter((r) => r.params.command === SERVER_COMMANDS.measure);
}

const run = (h: Harness, id: string = COMMANDS.measure) => h.fake.commands.get(id)!();

describe('trust gating', () => {
  it('refuses to measure in an untrusted workspace and says why', async () => {
    const h = await measuring({ before: (f) => (f.trusted = false) });
    await run(h);
    assert.equal(measureRequests(h).length, 0);
    assert.equal(h.fake.inputBoxes.length, 0, 'must not even ask for the command');
    const [warning] = h.fake.messagesOf('warning');
    assert.match(warning.message, /runs code from this workspace/);
    assert.match(warning.message, /disabled until you trust the workspace/);
    assert.deepEqual(warning.items, ['Manage Workspace Trust']);
    assert.match(String(h.ext.statusBarItem.tooltip), /disabled until the workspace is trusted/);
  });

  it('"Manage Workspace Trust" opens the trust editor', async () => {
    const h = await measuring({
      before: (f) => {
        f.trusted = false;
        f.messageAnswer = () => 'Manage Workspace Trust';
      },
    });
    await run(h);
    assert.ok(h.fake.executedCommands.some((c) => c.id === 'workbench.trust.manage'));
  });

  it('also gates "change command", and the server still runs for linting', async () => {
    const h = await measuring({ before: (f) => (f.trusted = false) });
    await run(h, COMMANDS.changeMeasureCommand);
    assert.equal(measureRequests(h).length, 0);
    assert.equal(h.ext.serverState, 'running');
  });

  it('works once the workspace is trusted', async () => {
    const h = await measuring({
      before: (f) => {
        f.trusted = false;
        f.inputBoxAnswers = ['python3 examples/sim.py'];
      },
    });
    await run(h);
    assert.equal(measureRequests(h).length, 0);
    h.fake.trusted = true;
    h.fake.onDidGrantWorkspaceTrust.fire();
    await run(h);
    assert.equal(measureRequests(h).length, 1);
  });

  it('declares limited support for untrusted workspaces in package.json', () => {
    const untrusted = pkg.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.match(untrusted.description, /Measuring/);
    assert.deepEqual([...untrusted.restrictedConfigurations].sort(), ['warpCt.interpreter', 'warpCt.probeCommand']);
  });
});

describe('asking for the command and remembering it', () => {
  it('asks once, defaulting to the interpreter and the active file, and sends it to the server', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 examples/sim.py --steps 2']) });
    const result = await run(h);
    assert.equal(h.fake.inputBoxes.length, 1);
    assert.equal(h.fake.inputBoxes[0].value, `python3 ${path.join('examples', 'sim.py')}`);
    assert.match(h.fake.inputBoxes[0].prompt ?? '', /remembered for this workspace/);
    const [req] = measureRequests(h);
    assert.equal(req.method, 'workspace/executeCommand');
    assert.deepEqual(req.params.arguments, [['python3', 'examples/sim.py', '--steps', '2'], WS, 3]);
    assert.ok(req.token, 'the request is cancellable');
    assert.deepEqual(result, OK);
    assert.deepEqual(h.context.workspaceState.get(STATE_KEYS.measureCommand), ['python3', 'examples/sim.py', '--steps', '2']);
  });

  it('uses the chosen interpreter in the default command', async () => {
    const h = await measuring({ before: (f) => f.config.set('warpCt.interpreter', '/opt/venv/bin/python') });
    await run(h);
    assert.equal(h.fake.inputBoxes[0].value, `/opt/venv/bin/python ${path.join('examples', 'sim.py')}`);
  });

  it('does not ask again in the same workspace', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    await run(h);
    await run(h);
    assert.equal(h.fake.inputBoxes.length, 1);
    const reqs = measureRequests(h);
    assert.equal(reqs.length, 2);
    assert.deepEqual(reqs[1].params.arguments[0], ['python3', 'a.py']);
  });

  it('remembers per workspace (workspaceState), also across restarts of the extension', async () => {
    const context = makeContext();
    await run(await measuring({ context, before: (f) => (f.inputBoxAnswers = ['python3 a.py']) }));
    const again = await measuring({ context });
    await run(again);
    assert.equal(again.fake.inputBoxes.length, 0);
    assert.deepEqual(measureRequests(again)[0].params.arguments[0], ['python3', 'a.py']);

    const otherWorkspace = await measuring({ before: (f) => (f.inputBoxAnswers = [undefined]) });
    await run(otherWorkspace);
    assert.equal(otherWorkspace.fake.inputBoxes.length, 1, 'a different workspace asks again');
  });

  it('"change command" asks again with the current command filled in and remembers the new one', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py', "python3 'b c.py' -n 1"]) });
    await run(h);
    await run(h, COMMANDS.changeMeasureCommand);
    assert.equal(h.fake.inputBoxes.length, 2);
    assert.equal(h.fake.inputBoxes[1].value, 'python3 a.py');
    assert.deepEqual(measureRequests(h)[1].params.arguments[0], ['python3', 'b c.py', '-n', '1']);
    await run(h);
    assert.equal(h.fake.inputBoxes.length, 2);
    assert.deepEqual(measureRequests(h)[2].params.arguments[0], ['python3', 'b c.py', '-n', '1']);
  });

  it('does nothing when the question is dismissed', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = [undefined]) });
    assert.equal(await run(h), undefined);
    assert.equal(measureRequests(h).length, 0);
    assert.equal(h.context.workspaceState.get(STATE_KEYS.measureCommand), undefined);
  });

  it('validates the typed command', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = [undefined]) });
    await run(h);
    const validate = h.fake.inputBoxes[0].validateInput!;
    assert.ok(await validate('   '));
    assert.match(String(await validate('python "x')), /Cannot parse/);
    assert.equal(await validate('python x.py'), undefined);
  });

  it('uses warpCt.probeCommand without asking, and the samples setting', async () => {
    const h = await measuring({
      before: (f) => {
        f.config.set('warpCt.probeCommand', ['python', '-m', 'mypkg.train']);
        f.config.set('warpCt.samples', 5);
      },
    });
    await run(h);
    assert.equal(h.fake.inputBoxes.length, 0);
    assert.deepEqual(measureRequests(h)[0].params.arguments, [['python', '-m', 'mypkg.train'], WS, 5]);
  });

  it('with no Python file open, asks with an empty value', async () => {
    const h = await measuring({
      before: (f) => {
        f.activeTextEditor = undefined;
        f.inputBoxAnswers = ['python3 main.py'];
      },
    });
    await run(h);
    assert.equal(h.fake.inputBoxes[0].value, '');
    assert.deepEqual(measureRequests(h)[0].params.arguments, [['python3', 'main.py'], WS, 3]);
  });
});

describe('running a measurement', () => {
  it('shows cancellable progress and the last measurement in the status bar', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    await run(h);
    const [progress] = h.fake.progress;
    assert.equal(progress.options.cancellable, true);
    assert.match(progress.options.title ?? '', /measuring compile time of `python3 a.py`/);
    assert.equal(h.ext.statusBarItem.text, '$(zap) Warp: cold 4.2 s / warm 0.3 s');
    assert.match(String(h.ext.statusBarItem.tooltip), /Last measurement: cold 4.2 s/);
    const info = h.fake.messagesOf('info').at(-1)!;
    assert.equal(info.message, `Warp: ${OK.summary}`);
    assert.deepEqual(info.items, ['Open in Browser', 'Change Command']);
  });

  it('opens the HTML timeline in a webview beside the code, reusing the panel', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    await run(h);
    assert.equal(h.fake.webviewPanels.length, 1);
    const [panel] = h.fake.webviewPanels;
    assert.equal(panel.title, 'Warp: compile-time timeline');
    assert.deepEqual(panel.showOptions, { viewColumn: -2, preserveFocus: true });
    assert.equal((panel.options as { enableScripts: boolean }).enableScripts, false);
    assert.match(panel.webview.html, /<head><meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    assert.match(panel.webview.html, /<svg><\/svg>timeline/);
    assert.equal(h.fake.messagesOf('error').length, 0);
    // A second measurement refreshes the same panel; the lens command and "Show timeline" reveal it.
    await run(h);
    assert.equal(h.fake.webviewPanels.length, 1);
    assert.equal(panel.reveals, 1);
    await run(h, COMMANDS.showTimeline);
    assert.equal(panel.reveals, 2);
    const spec = h.clients.at(-1)!.spec;
    await spec.localCommands![SERVER_COMMANDS.openMeasureReport]('/tmp/summary.md');
    assert.equal(panel.reveals, 3);
    // Closed by the user: the next one opens a new panel.
    panel.dispose();
    await run(h, COMMANDS.showTimeline);
    assert.equal(h.fake.webviewPanels.length, 2);
  });

  it('"Show compile-time timeline" before any measurement says what to do', async () => {
    const h = await measuring();
    await run(h, COMMANDS.showTimeline);
    assert.equal(h.fake.webviewPanels.length, 0);
    assert.match(h.fake.messagesOf('info').at(-1)!.message, /Measure compile time/);
  });

  it('keeps the last measurement across reloads', async () => {
    const context = makeContext();
    await run(await measuring({ context, before: (f) => (f.inputBoxAnswers = ['python3 a.py']) }));
    const reloaded = await measuring({ context });
    assert.equal(reloaded.ext.statusBarItem.text, '$(zap) Warp: cold 4.2 s / warm 0.3 s');
  });

  it('"Open in Browser" opens the HTML report externally', async () => {
    const h = await measuring({
      before: (f) => {
        f.inputBoxAnswers = ['python3 a.py'];
        f.messageAnswer = (m) => (m.items.includes('Open in Browser') ? 'Open in Browser' : undefined);
      },
    });
    await run(h);
    assert.deepEqual(h.fake.openedExternal.map((u) => u.fsPath), [path.resolve(OK.htmlPath!)]);
  });

  it('reports a failed run as an error with ways out', async () => {
    const h = await measuring({
      before: (f) => (f.inputBoxAnswers = ['python3 a.py']),
      result: { ok: false, summary: 'the command exited with status 1 (see the log)' },
    });
    await run(h);
    const err = h.fake.messagesOf('error').at(-1)!;
    assert.match(err.message, /exited with status 1/);
    assert.deepEqual(err.items, ['Change Command', 'Show Log']);
  });

  it('cancelling the progress cancels the request and says so', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    h.fake.cancelProgress = true;
    h.handlers.set(
      SERVER_COMMANDS.measure,
      (_p, token) =>
        new Promise((_resolve, reject) => {
          token!.onCancellationRequested(() => reject(Object.assign(new Error('Request cancelled'), { code: -32800 })));
        }),
    );
    assert.equal(await run(h), undefined);
    assert.ok(h.fake.messagesOf('info').some((m) => /cancelled/.test(m.message)));
    assert.equal(h.ext.statusBarItem.text, '$(zap) Warp');
  });

  it("shows the server's progress in the cancellable notification, and Cancel stops the server's run", async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    h.handlers.set(SERVER_COMMANDS.measure, async () => {
      const c = h.client;
      c.emitProgress({ token: 'm1', kind: 'begin', title: 'Measuring compile time', message: 'python3 a.py', cancellable: true, percentage: 0 });
      c.emitProgress({ token: 'm1', kind: 'report', message: 'cold run', percentage: 25 });
      c.emitProgress({ token: 'm1', kind: 'report', message: 'warm run 1/3', percentage: 50 });
      const notification = h.fake.progress.at(-1)!;
      assert.deepEqual(notification.reports, [
        { message: 'python3 a.py', increment: undefined },
        { message: 'cold run', increment: 25 },
        { message: 'warm run 1/3', increment: 25 },
      ]);
      notification.tokenSource.cancel();
      assert.deepEqual(c.cancelledProgress, ['m1']);
      c.emitProgress({ token: 'm1', kind: 'end', message: 'cancelled' });
      return { ok: false, summary: 'Measurement cancelled.', cancelled: true };
    });
    await run(h);
    assert.equal(h.fake.progress.filter((p) => p.options.location === 10).length, 0, 'no second (status bar) progress');
    assert.ok(h.fake.messagesOf('info').some((m) => m.message === 'Warp: measurement cancelled.'));
  });

  it('shows other server progress in the status bar', async () => {
    const h = await measuring();
    h.client.emitProgress({ token: 7, kind: 'begin', title: 'Linting', message: '3 files' });
    h.client.emitProgress({ token: 7, kind: 'report', message: '2 files' });
    const window = h.fake.progress.at(-1)!;
    assert.equal(window.options.location, 10);
    assert.equal(window.options.title, 'Linting');
    assert.deepEqual(window.reports, [{ message: '3 files' }, { message: '2 files' }]);
    h.client.emitProgress({ token: 7, kind: 'end' });
    await new Promise((r) => setImmediate(r));
    assert.ok(window.done);
  });

  it('a result marked cancelled is not an error and keeps the previous measurement', async () => {
    const h = await measuring({
      before: (f) => (f.inputBoxAnswers = ['python3 a.py']),
      result: { ok: false, summary: 'Measurement cancelled.', cancelled: true, exitCode: 130, coldWallS: null },
    });
    await run(h);
    assert.equal(h.fake.messagesOf('error').length, 0);
    assert.ok(h.fake.messagesOf('info').some((m) => m.message === 'Warp: measurement cancelled.'));
    assert.equal(h.ext.statusBarItem.text, '$(zap) Warp');
  });

  it('accepts nulls from the server', async () => {
    const h = await measuring({
      before: (f) => (f.inputBoxAnswers = ['python3 a.py']),
      result: { ok: true, summary: 'measured; 0 modules', coldWallS: null, warmWallS: null, htmlPath: null, jsonPath: '/tmp/r.json' },
    });
    await run(h);
    assert.equal(h.ext.statusBarItem.text, '$(zap) Warp');
    assert.deepEqual(h.fake.messagesOf('info').at(-1)!.items, ['Change Command']);
  });

  it('shows "measuring…" while the server works', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    let seen = '';
    h.handlers.set(SERVER_COMMANDS.measure, () => {
      seen = h.ext.statusBarItem.text;
      return OK;
    });
    await run(h);
    assert.equal(seen, '$(sync~spin) Warp: measuring…');
  });

  it('explains when the server is not running', async () => {
    const h = await measuring({ before: (f) => (f.inputBoxAnswers = ['python3 a.py']) });
    await h.ext.stop();
    await run(h);
    assert.equal(measureRequests(h).length, 0);
    assert.match(h.fake.messagesOf('error').at(-1)!.message, /language server is not available/);
  });

  it('formats measurements', () => {
    assert.equal(formatMeasurement({ ok: true, summary: '', coldWallS: 123.4, warmWallS: 0.04 }), 'cold 123 s / warm 0.04 s');
    assert.equal(formatMeasurement({ ok: true, summary: '', coldWallS: 12.25 }), 'cold 12.3 s');
    assert.equal(formatMeasurement({ ok: false, summary: '' }), undefined);
  });
});
