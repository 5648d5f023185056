/**
 * Minimal POSIX-shell-like splitting and quoting for the measure command the user types.
 * No expansion or pipes: the server runs the resulting argv directly (no shell).
 */
export function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote === "'") {
      if (ch === "'") quote = null;
      else current += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) current += line[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inArg = true;
    } else if (ch === '\\' && i + 1 < line.length && process.platform !== 'win32') {
      current += line[++i];
      inArg = true;
    } else if (/\s/.test(ch)) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += ch;
      inArg = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote`);
  if (inArg) args.push(current);
  return args;
}

/** Quotes one argument so that `splitCommandLine` gives it back unchanged. */
export function quoteArg(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./\\-]+$/.test(arg)) {
    return process.platform === 'win32' || !arg.includes('\\') ? arg : `'${arg}'`;
  }
  if (!arg.includes("'")) return `'${arg}'`;
  return `"${arg.replace(/(["\\$`])/g, '\\$1')}"`;
}

export function joinCommandLine(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}
