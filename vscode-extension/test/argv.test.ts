import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinCommandLine, quoteArg, splitCommandLine } from '../src/argv';

describe('command line splitting', () => {
  it('splits on whitespace and honours quotes', () => {
    assert.deepEqual(splitCommandLine('python train.py --steps 1'), ['python', 'train.py', '--steps', '1']);
    assert.deepEqual(splitCommandLine(`  python  'my file.py' "a \\"b\\"" ''`), ['python', 'my file.py', 'a "b"', '']);
    assert.deepEqual(splitCommandLine('a\\ b c'), ['a b', 'c']);
    assert.deepEqual(splitCommandLine(''), []);
  });

  it('rejects an unterminated quote', () => {
    assert.throws(() => splitCommandLine('python "oops'), /unterminated/);
  });

  it('round-trips through joinCommandLine', () => {
    const cases = [
      ['python3', 'examples/sim.py'],
      ['/opt/my env/bin/python', 'it\'s.py', 'say "hi"', '$HOME', '', '--x=1,2'],
      ['python', '-c', 'import warp; print(1)'],
    ];
    for (const argv of cases) assert.deepEqual(splitCommandLine(joinCommandLine(argv)), argv);
  });

  it('leaves plain words unquoted', () => {
    assert.equal(quoteArg('train.py'), 'train.py');
    assert.equal(quoteArg('--steps=10'), '--steps=10');
    assert.equal(quoteArg('a b'), "'a b'");
  });
});
