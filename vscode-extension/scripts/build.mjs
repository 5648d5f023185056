// Bundles the extension (dist/extension.js) or, with --tests, the unit tests (out/test/*.test.js) with
// `vscode` aliased to the fake in test/fake-vscode.ts. Offline: only esbuild is needed.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  logLevel: 'warning',
  absWorkingDir: root,
};

if (args.has('--tests')) {
  const testDir = join(root, 'test');
  const entryPoints = readdirSync(testDir)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(testDir, f));
  rmSync(join(root, 'out', 'test'), { recursive: true, force: true });
  await esbuild.build({
    ...common,
    entryPoints,
    outdir: join(root, 'out', 'test'),
    sourcemap: 'inline',
    alias: { vscode: './test/fake-vscode.ts' },
    // vscode-languageclient is bundled too, so that its own `require('vscode')` also gets the fake.
  });
  console.log(`bundled ${entryPoints.length} test files into out/test/`);
} else {
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.js'),
    external: ['vscode'],
    sourcemap: !production,
    minify: production,
  });
  console.log(`bundled dist/extension.js${production ? ' (production)' : ''}`);
}
