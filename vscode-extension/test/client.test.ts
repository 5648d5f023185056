import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientOptions, createLanguageClient, serverOptions } from '../src/client';
import { readSettings } from '../src/settings';
import type { ClientSpec } from '../src/seams';
import { resetFake, window } from './fake-vscode';

function spec(): ClientSpec {
  const f = resetFake();
  f.config.set('warpCt.select', ['WCT0']);
  return {
    id: 'warpCt',
    name: 'Warp compile time (warp-ct)',
    launch: { command: '/opt/py/bin/python', args: ['-m', 'warp_ct', 'serve'], cwd: '/opt/ext' },
    documentSelector: [{ scheme: 'file', language: 'python' }],
    initializationOptions: readSettings(),
    configurationSection: 'warpCt',
    fileWatchers: [],
    outputChannel: {} as ClientSpec['outputChannel'],
  };
}

describe('the real vscode-languageclient options', () => {
  it('spawn the interpreter with -m warp_ct serve over stdio, outside the workspace', () => {
    const s = spec();
    assert.deepEqual(serverOptions(s), {
      command: '/opt/py/bin/python',
      args: ['-m', 'warp_ct', 'serve'],
      options: { cwd: '/opt/ext' },
    });
    assert.ok(!('transport' in serverOptions(s)), 'TransportKind.stdio would add --stdio to the command line');
  });

  it('pass the settings as initializationOptions and synchronise the warpCt section', () => {
    const s = spec();
    const o = clientOptions(s);
    assert.equal(o.initializationOptions, s.initializationOptions);
    assert.deepEqual((o.initializationOptions as { select: string[] }).select, ['WCT0']);
    assert.equal(o.synchronize?.configurationSection, 'warpCt');
    assert.equal(o.outputChannel, s.outputChannel);
    assert.deepEqual(o.documentSelector, s.documentSelector);
  });
});

describe('createLanguageClient', () => {
  it('builds a real LanguageClient behind the seam (it accepts the oldest VS Code engines.vscode allows)', () => {
    const s = spec();
    s.outputChannel = window.createOutputChannel('x') as unknown as ClientSpec['outputChannel'];
    const client = createLanguageClient(s);
    assert.equal(client.isRunning(), false);
    assert.equal(typeof client.onDidChangeState, 'function');
  });
});
