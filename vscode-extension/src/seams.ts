import type * as vscode from 'vscode';
import type { WarpCtSettings } from './settings';

/**
 * Seams between the extension core and the outside world. The real implementations live in
 * `client.ts` (vscode-languageclient) and `process.ts` (child_process); the unit tests inject fakes.
 */

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Never the workspace: `python -m` puts the cwd on sys.path, and a workspace must not shadow `warp_ct`. */
  cwd: string;
}

export interface ClientSpec {
  /** Also the prefix of the `<id>.trace.server` setting that vscode-languageclient reads. */
  id: string;
  name: string;
  launch: ServerLaunch;
  documentSelector: { scheme: string; language: string }[];
  /** The whole `warpCt` settings object. */
  initializationOptions: WarpCtSettings;
  /** Settings section synchronised through `workspace/didChangeConfiguration`. */
  configurationSection: string;
  /** Watched files forwarded as `workspace/didChangeWatchedFiles` (pyproject.toml: the server re-lints). */
  fileWatchers: vscode.FileSystemWatcher[];
  outputChannel: vscode.LogOutputChannel;
  /**
   * Server commands (e.g. a code lens's) that the extension runs itself instead of sending
   * `workspace/executeCommand`; the handler gets the command's arguments.
   */
  localCommands?: Record<string, (...args: unknown[]) => unknown>;
}

export type ClientState = 'starting' | 'running' | 'stopped';

export type ProgressToken = string | number;

/** A `$/progress` notification for a server-created (`window/workDoneProgress/create`) token. */
export interface ServerProgress {
  token: ProgressToken;
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
  cancellable?: boolean;
}

export interface LanguageClientLike {
  start(): Promise<void>;
  stop(): Promise<void>;
  sendRequest<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R>;
  onDidChangeState(listener: (state: ClientState) => void): vscode.Disposable;
  isRunning(): boolean;
  /**
   * Server-created work-done progress. vscode-languageclient would show it in the status bar, where
   * it cannot be cancelled; the extension shows it itself (in the measure notification).
   */
  onServerProgress(listener: (progress: ServerProgress) => void): vscode.Disposable;
  /** `window/workDoneProgress/cancel`: how the server stops a running measurement. */
  cancelServerProgress(token: ProgressToken): void;
}

export type ClientFactory = (spec: ClientSpec) => LanguageClientLike;

export interface ProcessResult {
  /** Exit code, or null when the process could not be started or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Spawn error, e.g. `ENOENT` when the interpreter does not exist. */
  errorCode?: string;
  errorMessage?: string;
}

export type ProcessRunner = (
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number },
) => Promise<ProcessResult>;

export interface Dependencies {
  createClient: ClientFactory;
  runProcess: ProcessRunner;
}
