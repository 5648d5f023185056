import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS, SERVER_ARGS } from '../src/core';
import { fake as currentFake, Uri, type FakeStatusBarItem } from './fake-vscode';
import { harness, NO_SUCH_FILE, NOT_INSTALLED, pythonExtension, settle } from './helpers';

const EXT_DIR = path.resolve('/opt/vscode/extensions/warp-ct');
const WS = path.resolve('/work/project');

function withWorkspace(f: typeof currentFake): void {
  f.workspaceFolders = [{ uri: Uri.file(WS), name: 'project', index: 0 }];
}

describe('spawned server command and interpreter choice', () => {
  it('runs `python3 -m warp_ct serve` when nothing else is configured', async () => {
    const h = await harness({ before: withWorkspace });
    assert.equal(h.clients.length, 1);
    assert.deepEqual(h.client.spec.launch, { command: 'python3', args: ['-m', 'warp_ct', 'serve'], cwd: EXT_DIR });
    assert.deepEqual(SERVER_ARGS, ['-m', 'warp_ct', 'serve']);
    assert.equal(h.ext.currentInterpreter?.source, 'default');
    assert.equal(h.ext.serverState, 'running');
    assert.ok(h.client.running);
  });

  it('never starts the server from the workspace folder (a workspace must not shadow warp_ct)', async () => {
    const h = await harness({ before: withWorkspace });
    assert.notEqual(h.client.spec.launch.cwd, WS);
    assert.equal(h.processCalls[0].cwd, EXT_DIR);
  });

  it('prefers the warpCt.interpreter setting over the Python extension', async () => {
    const h = await harness({
      before: (f) => {
        withWorkspace(f);
        f.config.set('warpCt.interpreter', '/opt/venv/bin/python');
        f.extensions.set('ms-python.python', pythonExtension('/usr/bin/python-from-ext'));
      },
    });
    assert.equal(h.client.spec.launch.command, '/opt/venv/bin/python');
    assert.equal(h.ext.currentInterpreter?.source, 'setting');
  });

  it('expands ${workspaceFolder} and ~ in warpCt.interpreter', async () => {
    const h = await harness({
      before: (f) => {
        withWorkspace(f);
        f.config.set('warpCt.interpreter', '${workspaceFolder}/.venv/bin/python');
      },
    });
    assert.equal(h.client.spec.launch.command, `${WS}/.venv/bin/python`);
    const home = process.env.HOME;
    if (home) {
      const h2 = await harness({ before: (f) => f.config.set('warpCt.interpreter', '~/py/bin/python') });
      assert.equal(h2.client.spec.launch.command, `${home}/py/bin/python`);
    }
  });

  it("uses the Python extension's active interpreter when there is no setting", async () => {
    const h = await harness({
      before: (f) => f.extensions.set('ms-python.python', pythonExtension('/home/u/.venv/bin/python')),
    });
    assert.equal(h.client.spec.launch.command, '/home/u/.venv/bin/python');
    assert.deepEqual(h.client.spec.launch.args, ['-m', 'warp_ct', 'serve']);
    assert.equal(h.ext.currentInterpreter?.source, 'python-extension');
  });

  it('activates the Python extension when it is installed but not active yet', async () => {
    const py = pythonExtension('/envs/a/bin/python', { active: false });
    const h = await harness({ before: (f) => f.extensions.set('ms-python.python', py) });
    assert.equal((py as unknown as { activations: number }).activations, 1);
    assert.equal(h.client.spec.launch.command, '/envs/a/bin/python');
  });

  it("supports the Python extension's older settings.getExecutionDetails API", async () => {
    const h = await harness({
      before: (f) => f.extensions.set('ms-python.python', pythonExtension('/envs/old/bin/python', { api: 'settings' })),
    });
    assert.equal(h.client.spec.launch.command, '/envs/old/bin/python');
  });

  it('falls back to python3 when the Python extension fails (it is optional)', async () => {
    const h = await harness({
      before: (f) => f.extensions.set('ms-python.python', pythonExtension('/x', { throws: true })),
    });
    assert.equal(h.client.spec.launch.command, 'python3');
  });

  it('restarts with the new interpreter when the Python extension switches environments', async () => {
    const py = pythonExtension('/envs/a/bin/python');
    const h = await harness({ before: (f) => f.extensions.set('ms-python.python', py) });
    const first = h.client;
    py.change('/envs/b/bin/python');
    await settle();
    assert.equal(h.clients.length, 2);
    assert.ok(first.stopped);
    assert.equal(h.client.spec.launch.command, '/envs/b/bin/python');
  });

  it('restarts when warpCt.interpreter changes, and not for other settings', async () => {
    const h = await harness();
    h.fake.setConfig({ 'warpCt.select': ['WCT0'] });
    await settle();
    assert.equal(h.clients.length, 1);
    h.fake.setConfig({ 'warpCt.interpreter': '/new/python' });
    await settle();
    assert.equal(h.clients.length, 2);
    assert.equal(h.client.spec.launch.command, '/new/python');
  });
});

describe('missing warp-ct', () => {
  it('checks `<python> -c "import warp_ct"` before starting', async () => {
    const h = await harness({ before: (f) => f.config.set('warpCt.interpreter', '/opt/py') });
    assert.deepEqual(h.processCalls[0], { command: '/opt/py', args: ['-c', 'import warp_ct'], cwd: EXT_DIR });
  });

  it('explains how to install warp-ct (not from PyPI) instead of starting the server', async () => {
    const h = await harness({
      importCheck: () => NOT_INSTALLED,
      before: (f) => f.config.set('warpCt.interpreter', '/opt/my env/bin/python'),
    });
    assert.equal(h.clients.length, 0);
    assert.equal(h.ext.serverState, 'missing');
    const [err] = h.fake.messagesOf('error');
    assert.match(err.message, /warp-ct is not installed/);
    assert.match(err.message, /\/opt\/my env\/bin\/python/);
    assert.match(err.message, /not on PyPI/);
    assert.ok(err.message.includes(`'/opt/my env/bin/python' -m pip install -e <checkout>`), err.message);
    assert.ok(err.message.includes(`'/opt/my env/bin/python' -m pip install <wheel>`), err.message);
    assert.doesNotMatch(err.message, /pip install warp-ct/);
    assert.deepEqual(err.items, ['Install from Checkout…', 'Install from Wheel…', 'Choose Interpreter']);
    assert.match(h.ext.statusBarItem.text, /not installed/);
  });

  it('"Install from Checkout…" asks for a folder and runs `pip install -e` on it in a terminal', async () => {
    const checkout = path.resolve('/src/warp ct');
    const h = await harness({
      importCheck: () => NOT_INSTALLED,
      before: (f) => {
        f.messageAnswer = (m) => (m.items.includes('Install from Checkout…') ? 'Install from Checkout…' : undefined);
        f.openDialogAnswer = () => [Uri.file(checkout)];
      },
    });
    await settle();
    assert.equal(h.fake.openDialogs.length, 1);
    assert.equal(h.fake.openDialogs[0].canSelectFolders, true);
    assert.equal(h.fake.openDialogs[0].canSelectFiles, false);
    assert.deepEqual(h.fake.terminals[0].sent, [`python3 -m pip install -e '${checkout}'`]);
    assert.ok(h.fake.terminals[0].shown);
    assert.ok(h.fake.messagesOf('info').some((m) => m.items.includes('Restart Server')));
  });

  it('"Install from Wheel…" asks for a .whl file and installs it; cancelling the dialog runs nothing', async () => {
    const wheel = path.resolve('/dist/warp_ct-0.1.0-py3-none-any.whl');
    let h = await harness({
      importCheck: () => NOT_INSTALLED,
      before: (f) => {
        f.messageAnswer = (m) => (m.items.includes('Install from Wheel…') ? 'Install from Wheel…' : undefined);
        f.openDialogAnswer = () => [Uri.file(wheel)];
      },
    });
    await settle();
    assert.equal(h.fake.openDialogs[0].canSelectFiles, true);
    assert.deepEqual(h.fake.openDialogs[0].filters, { 'Python wheel': ['whl'] });
    assert.deepEqual(h.fake.terminals[0].sent, [`python3 -m pip install ${wheel}`]);

    h = await harness({
      importCheck: () => NOT_INSTALLED,
      before: (f) => {
        f.messageAnswer = (m) => (m.items.includes('Install from Wheel…') ? 'Install from Wheel…' : undefined);
      },
    });
    await settle();
    assert.equal(h.fake.openDialogs.length, 1);
    assert.equal(h.fake.terminals.length, 0);
  });

  it('starts once warp-ct is installed and the server is restarted', async () => {
    let installed = false;
    const h = await harness({ importCheck: () => (installed ? { code: 0, stdout: '', stderr: '' } : NOT_INSTALLED) });
    assert.equal(h.clients.length, 0);
    installed = true;
    await h.fake.commands.get(COMMANDS.restartServer)!();
    assert.equal(h.clients.length, 1);
    assert.equal(h.ext.serverState, 'running');
  });

  it('says when the interpreter itself does not exist', async () => {
    const h = await harness({
      importCheck: () => NO_SUCH_FILE,
      before: (f) => f.config.set('warpCt.interpreter', '/nope/python'),
    });
    assert.equal(h.clients.length, 0);
    const [err] = h.fake.messagesOf('error');
    assert.match(err.message, /"\/nope\/python".*was not found/);
    assert.deepEqual(err.items, ['Open Settings']);
  });

  it('reports a server that fails to start and offers the log', async () => {
    const h = await harness({ startError: new Error('Pending response rejected since connection got disposed') });
    assert.equal(h.ext.serverState, 'error');
    const [err] = h.fake.messagesOf('error');
    assert.match(err.message, /failed to start/);
    assert.deepEqual(err.items, ['Show Log', 'Restart Server']);
    assert.match(h.ext.statusBarItem.text, /server stopped/);
  });
});

describe('restart, log and status bar', () => {
  it('registers the commands', async () => {
    const h = await harness();
    for (const id of Object.values(COMMANDS)) assert.ok(h.fake.commands.has(id), id);
  });

  it('"Warp: Restart server" stops the old client and starts a new one', async () => {
    const h = await harness();
    const first = h.client;
    await h.fake.commands.get(COMMANDS.restartServer)!();
    assert.ok(first.stopped);
    assert.equal(h.clients.length, 2);
    assert.ok(h.client.running);
    assert.equal(h.ext.serverState, 'running');
  });

  it('"Warp: Show log" shows the output channel the client logs to', async () => {
    const h = await harness();
    await h.fake.commands.get(COMMANDS.showLog)!();
    const channel = h.fake.outputChannels[0];
    assert.equal(channel.shown, 1);
    assert.equal(h.client.spec.outputChannel as unknown, channel);
    assert.ok(channel.lines.some((l) => l.includes('python3 -m warp_ct serve')), channel.lines.join('\n'));
  });

  it('shows the server state in the status bar', async () => {
    const h = await harness({ activate: false });
    await h.ext.activate();
    const item = h.ext.statusBarItem as unknown as FakeStatusBarItem;
    assert.ok(item.visible);
    assert.equal(item.text, '$(zap) Warp');
    assert.match(String(item.tooltip), /language server: running/);
    assert.match(String(item.tooltip), /Interpreter: python3/);
    assert.equal(item.command, COMMANDS.showMenu);
    await h.ext.stop();
    assert.equal(item.text, '$(circle-slash) Warp');
  });

  it('marks the status bar when the server stops by itself', async () => {
    const h = await harness();
    await h.client.stop();
    assert.equal(h.ext.serverState, 'error');
    assert.match(h.ext.statusBarItem.text, /server stopped/);
  });
});
