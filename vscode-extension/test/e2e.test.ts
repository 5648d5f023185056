import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { createLanguageClient } from '../src/client';
import { WarpCtExtension } from '../src/core';
import { runProcess } from '../src/process';
import { makeContext, resetFake, Uri } from './fake-vscode';

/**
 * The real vscode-languageclient talking to the real `python -m warp_ct serve` (VS Code itself is the
 * fake). Skipped when warp_ct cannot be imported by the interpreter below.
 */
const REPO = path.resolve(__dirname, '..', '..', '..');
const PYTHON = process.env.WARP_CT_TEST_PYTHON ?? 'python3';
const env = { ...process.env, PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) };
const importable = spawnSync(PYTHON, ['-c', 'import warp_ct.server.server'], { env }).status === 0;

describe('end to end with the real server', { timeout: 120_000, skip: importable ? false : `${PYTHON} cannot import warp_ct.server` }, () => {
  it('starts the server, lints the workspace and measures a command', async () => {
    process.env.PYTHONPATH = env.PYTHONPATH;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warp-ct-e2e-'));
    fs.writeFileSync(
      path.join(dir, 'k.py'),
      'import warp as wp\n\n@wp.kernel(module_options={"enable_backward": False})\ndef k(a: wp.array(dtype=float)):\n    pass\n',
    );
    const f = resetFake();
    f.workspaceFolders = [{ uri: Uri.file(dir), name: 'e2e', index: 0 }];
    f.config.set('warpCt.interpreter', PYTHON);
    f.config.set('warpCt.samples', 1);
    f.config.set('warpCt.probeCommand', [PYTHON, '-c', 'print("hello")']);
    const ext = new WarpCtExtension(makeContext(path.resolve(__dirname, '..', '..')) as unknown as vscode.ExtensionContext, { createClient: createLanguageClient, runProcess });
    await ext.activate();
    try {
      assert.equal(ext.serverState, 'running', f.outputChannels[0]?.lines.join('\n'));
      const lint = await f.commands.get('warpCt.lintWorkspace')!();
      assert.deepEqual(lint, { files: 1, findings: 1 });
      const result = (await f.commands.get('warpCt.measure')!()) as { ok: boolean; summary: string } | undefined;
      assert.ok(result, JSON.stringify(f.messages));
      assert.equal(typeof result.summary, 'string');
      assert.ok(result.ok, result.summary);
      assert.match(ext.statusBarItem.text, /^\$\(zap\) Warp: cold [0-9.]+ s \/ warm [0-9.]+ s$/);
      // The server's $/progress went into the cancellable measure notification.
      const notification = f.progress.find((p) => p.options.cancellable && /measuring/.test(p.options.title ?? ''))!;
      assert.ok(notification.reports.some((r) => /cold run/.test(r.message ?? '')), JSON.stringify(notification.reports));

      // Cancel stops a long run (window/workDoneProgress/cancel), and the server is free again.
      f.setConfig({ 'warpCt.probeCommand': [PYTHON, '-c', 'import time; time.sleep(60)'] });
      const started = Date.now();
      const long = f.commands.get('warpCt.measure')!() as Promise<unknown>;
      const deadline = Date.now() + 30_000;
      let running;
      while (Date.now() < deadline) {
        running = f.progress.at(-1);
        if (running && /sleep/.test(running.options.title ?? '') && running.reports.some((r) => /cold run/.test(r.message ?? ''))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      running!.tokenSource.cancel();
      assert.equal(await long, undefined);
      assert.ok(f.messages.some((m) => m.message === 'Warp: measurement cancelled.'));
      f.setConfig({ 'warpCt.probeCommand': [PYTHON, '-c', 'pass'] });
      let again: { ok: boolean; summary: string } | undefined;
      for (let i = 0; i < 50; i++) {
        again = (await f.commands.get('warpCt.measure')!()) as typeof again;
        if (again && !/already running/.test(again.summary)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(again?.ok, again?.summary);
      assert.ok(Date.now() - started < 50_000, 'the cancelled run did not sleep for its full minute');
    } finally {
      await ext.stop();
    }
  });
});
