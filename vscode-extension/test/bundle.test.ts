import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { runProcess } from '../src/process';
import * as fakeVscode from './fake-vscode';

const DIST = path.resolve(__dirname, '..', '..', 'dist', 'extension.js');

describe('the built bundle (dist/extension.js)', () => {
  it('activates against the fake VS Code and reports a missing interpreter through the real process runner', async (t) => {
    if (!fs.existsSync(DIST)) {
      t.skip('dist/extension.js not built (npm run build)');
      return;
    }
    const f = fakeVscode.resetFake();
    f.config.set('warpCt.interpreter', '/nonexistent/bin/python');
    const loader = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
    const original = loader._load;
    loader._load = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? fakeVscode : original.call(this, request, ...rest);
    };
    try {
      const ext = require(DIST) as {
        activate(ctx: unknown): Promise<{ serverState: string }>;
        deactivate(): Promise<void>;
      };
      const context = fakeVscode.makeContext();
      const api = await ext.activate(context);
      assert.equal(api.serverState, 'missing');
      for (const id of ['warpCt.measure', 'warpCt.changeMeasureCommand', 'warpCt.lintWorkspace', 'warpCt.restartServer', 'warpCt.showLog']) {
        assert.ok(fakeVscode.fake.commands.has(id), id);
      }
      assert.match(fakeVscode.fake.messagesOf('error')[0].message, /"\/nonexistent\/bin\/python".*was not found/);
      assert.ok(context.subscriptions.length > 0);
      await ext.deactivate();
    } finally {
      loader._load = original;
    }
  });
});

describe('runProcess', () => {
  it('returns the exit code and output', async () => {
    const r = await runProcess(process.execPath, ['-e', 'console.log("hi"); console.error("err"); process.exit(3)'], {
      cwd: process.cwd(),
      timeoutMs: 10_000,
    });
    assert.equal(r.code, 3);
    assert.equal(r.stdout.trim(), 'hi');
    assert.equal(r.stderr.trim(), 'err');
  });

  it('reports a missing executable as ENOENT', async () => {
    const r = await runProcess('/nonexistent/bin/python', ['-c', 'import warp_ct'], { cwd: process.cwd(), timeoutMs: 10_000 });
    assert.equal(r.code, null);
    assert.equal(r.errorCode, 'ENOENT');
  });

  it('succeeds with exit code 0', async () => {
    const r = await runProcess(process.execPath, ['-e', ''], { cwd: process.cwd(), timeoutMs: 10_000 });
    assert.equal(r.code, 0);
  });
});
