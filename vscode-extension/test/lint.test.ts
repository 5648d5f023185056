import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMANDS, SERVER_COMMANDS } from '../src/core';
import { harness } from './helpers';

describe('Warp: Lint workspace', () => {
  it('asks the server to lint and reports the counts', async () => {
    const h = await harness({ before: (f) => (f.messageAnswer = () => 'Open Problems') });
    h.handlers.set(SERVER_COMMANDS.lintWorkspace, () => ({ files: 12, findings: 3 }));
    const result = await h.fake.commands.get(COMMANDS.lintWorkspace)!();
    assert.deepEqual(result, { files: 12, findings: 3 });
    const [req] = h.client.requests;
    assert.equal(req.method, 'workspace/executeCommand');
    assert.deepEqual(req.params, { command: 'warp-ct.lintWorkspace', arguments: [] });
    const info = h.fake.messagesOf('info').at(-1)!;
    assert.equal(info.message, 'Warp: 3 findings in 12 files.');
    assert.ok(h.fake.executedCommands.some((c) => c.id === 'workbench.actions.view.problems'));
  });

  it('is allowed in untrusted workspaces (static analysis only)', async () => {
    const h = await harness({ before: (f) => (f.trusted = false) });
    h.handlers.set(SERVER_COMMANDS.lintWorkspace, () => ({ files: 1, findings: 0 }));
    await h.fake.commands.get(COMMANDS.lintWorkspace)!();
    assert.equal(h.client.requests.length, 1);
    assert.equal(h.fake.messagesOf('info').at(-1)!.message, 'Warp: 0 findings in 1 file.');
  });

  it('reports a server error', async () => {
    const h = await harness();
    h.handlers.set(SERVER_COMMANDS.lintWorkspace, () => {
      throw new Error('boom');
    });
    assert.equal(await h.fake.commands.get(COMMANDS.lintWorkspace)!(), undefined);
    assert.match(h.fake.messagesOf('error').at(-1)!.message, /linting the workspace failed: boom/);
  });
});
