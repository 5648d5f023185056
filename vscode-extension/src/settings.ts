import * as vscode from 'vscode';

/** Configuration section of the extension; also the language client id (so `warpCt.trace.server` works). */
export const SECTION = 'warpCt';

export type Severity = 'error' | 'warning' | 'info' | 'hint';
export type TraceLevel = 'off' | 'messages' | 'verbose';

/** The `warpCt` settings object, sent verbatim as `initializationOptions` and on `workspace/didChangeConfiguration`. */
export interface WarpCtSettings {
  select: string[];
  ignore: string[];
  severity: Record<string, Severity>;
  probeCommand: string[];
  samples: number;
  interpreter: string;
  lintOnChange: boolean;
  targetWarpVersion: string;
  cudaArch: string;
  trace: { server: TraceLevel };
}

const SEVERITIES: ReadonlySet<string> = new Set(['error', 'warning', 'info', 'hint']);
const TRACE_LEVELS: ReadonlySet<string> = new Set(['off', 'messages', 'verbose']);

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Reads the `warpCt` section (for `resource` when given) and normalises it into a plain JSON object. */
export function readSettings(resource?: vscode.Uri | null): WarpCtSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION, resource ?? null);
  const severity: Record<string, Severity> = {};
  const rawSeverity = cfg.get<Record<string, unknown>>('severity') ?? {};
  if (rawSeverity && typeof rawSeverity === 'object') {
    for (const [code, level] of Object.entries(rawSeverity)) {
      if (typeof level === 'string' && SEVERITIES.has(level)) severity[code] = level as Severity;
    }
  }
  const samples = Number(cfg.get<number>('samples') ?? 3);
  const trace = cfg.get<string>('trace.server') ?? 'off';
  return {
    select: stringArray(cfg.get('select')),
    ignore: stringArray(cfg.get('ignore')),
    severity,
    probeCommand: stringArray(cfg.get('probeCommand')),
    samples: Number.isInteger(samples) && samples >= 1 ? samples : 3,
    interpreter: (cfg.get<string>('interpreter') ?? '').trim(),
    lintOnChange: cfg.get<boolean>('lintOnChange') ?? true,
    targetWarpVersion: (cfg.get<string>('targetWarpVersion') ?? '').trim(),
    cudaArch: (cfg.get<string>('cudaArch') ?? '').trim(),
    trace: { server: (TRACE_LEVELS.has(trace) ? trace : 'off') as TraceLevel },
  };
}
