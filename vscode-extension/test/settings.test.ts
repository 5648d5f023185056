import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMANDS, SERVER_COMMANDS } from '../src/core';
import { readSettings } from '../src/settings';
import { resetFake } from './fake-vscode';
import { harness } from './helpers';
import pkg from '../package.json';
import lock from '../../package-lock.json';

const DEFAULTS = {
  select: [],
  ignore: [],
  severity: {},
  probeCommand: [],
  samples: 3,
  interpreter: '',
  lintOnChange: true,
  targetWarpVersion: '',
  cudaArch: '',
  trace: { server: 'off' },
};

describe('settings reach the server', () => {
  it('sends the defaults as initializationOptions', async () => {
    const h = await harness();
    assert.deepEqual(h.client.spec.initializationOptions, DEFAULTS);
  });

  it('sends every warpCt setting as initializationOptions', async () => {
    const h = await harness({
      before: (f) => {
        f.config.set('warpCt.select', ['WCT0', 'WCT1']);
        f.config.set('warpCt.ignore', ['WCT012']);
        f.config.set('warpCt.severity', { WCT005: 'error', WCT1: 'hint', WCT2: 'bogus' });
        f.config.set('warpCt.probeCommand', ['python', 'train.py']);
        f.config.set('warpCt.samples', 7);
        f.config.set('warpCt.interpreter', '/opt/py');
        f.config.set('warpCt.lintOnChange', false);
        f.config.set('warpCt.targetWarpVersion', '1.10');
        f.config.set('warpCt.cudaArch', ' 86,90 ');
        f.config.set('warpCt.trace.server', 'verbose');
      },
    });
    assert.deepEqual(h.client.spec.initializationOptions, {
      select: ['WCT0', 'WCT1'],
      ignore: ['WCT012'],
      severity: { WCT005: 'error', WCT1: 'hint' },
      probeCommand: ['python', 'train.py'],
      samples: 7,
      interpreter: '/opt/py',
      lintOnChange: false,
      targetWarpVersion: '1.10',
      cudaArch: '86,90',
      trace: { server: 'verbose' },
    });
  });

  it('synchronises the warpCt section (didChangeConfiguration) and watches pyproject.toml', async () => {
    const h = await harness();
    assert.equal(h.client.spec.configurationSection, 'warpCt');
    assert.equal(h.client.spec.id, 'warpCt', 'so that vscode-languageclient reads warpCt.trace.server');
    assert.deepEqual(h.client.spec.documentSelector, [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ]);
    assert.deepEqual(h.fake.watchers, ['**/pyproject.toml']);
  });

  it('a restarted server gets the current settings', async () => {
    const h = await harness();
    h.fake.setConfig({ 'warpCt.select': ['WCT005'] });
    await h.fake.commands.get(COMMANDS.restartServer)!();
    assert.deepEqual(h.client.spec.initializationOptions.select, ['WCT005']);
  });

  it('normalises bad values', () => {
    const f = resetFake();
    f.config.set('warpCt.samples', 0);
    f.config.set('warpCt.select', 'WCT0');
    f.config.set('warpCt.trace.server', 'loud');
    const s = readSettings();
    assert.equal(s.samples, 3);
    assert.deepEqual(s.select, []);
    assert.equal(s.trace.server, 'off');
  });
});

describe('package.json manifest', () => {
  const props = pkg.contributes.configuration.properties as Record<string, { markdownDescription?: string; description?: string; default?: unknown }>;

  it('contributes every setting, each with a description and the default the client assumes', () => {
    const expected = ['select', 'ignore', 'severity', 'probeCommand', 'samples', 'interpreter', 'lintOnChange', 'targetWarpVersion', 'cudaArch', 'trace.server'];
    assert.deepEqual(Object.keys(props).sort(), expected.map((k) => `warpCt.${k}`).sort());
    for (const [key, p] of Object.entries(props)) {
      assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `${key} needs a description`);
    }
    for (const [key, value] of Object.entries(DEFAULTS)) {
      if (key === 'trace') assert.equal(props['warpCt.trace.server'].default, 'off');
      else assert.deepEqual(props[`warpCt.${key}`].default, value, key);
    }
  });

  it('contributes the commands under the Warp category', () => {
    const titles = Object.fromEntries(pkg.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
    assert.equal(titles[COMMANDS.measure], 'Warp: Measure compile time');
    assert.equal(titles[COMMANDS.changeMeasureCommand], 'Warp: Measure compile time (change command)');
    assert.equal(titles[COMMANDS.lintWorkspace], 'Warp: Lint workspace');
    assert.equal(titles[COMMANDS.restartServer], 'Warp: Restart server');
    assert.equal(titles[COMMANDS.showLog], 'Warp: Show log');
    for (const id of Object.values(SERVER_COMMANDS)) {
      assert.ok(!(id in titles), `${id} is registered by vscode-languageclient itself; the extension must not contribute it`);
    }
  });

  it('pins @types/vscode and vscode-languageclient to versions that match engines.vscode', () => {
    const engine = pkg.engines.vscode.replace(/^\^/, '');
    assert.equal(pkg.devDependencies['@types/vscode'], engine);
    const installed = (lock.packages as Record<string, { version?: string }>)['node_modules/vscode-languageclient'].version!;
    const major = Number(installed.split('.')[0]);
    const minorNeeded = major >= 10 ? 91 : major === 9 ? 82 : 0;
    assert.ok(Number(engine.split('.')[1]) >= minorNeeded, `vscode-languageclient ${installed} needs VS Code 1.${minorNeeded}`);
  });

  it('has what vsce needs to package without prompting', () => {
    assert.ok(pkg.repository.url);
    assert.ok(pkg.publisher);
    assert.equal(pkg.main, './dist/extension.js');
    assert.match(pkg.scripts.package, /vsce package --no-dependencies/);
  });
});
