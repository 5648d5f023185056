import type * as vscode from 'vscode';
import { WarpCtExtension } from '../src/core';
import type { ClientSpec, ClientState, LanguageClientLike, ProcessResult, ProgressToken, ServerProgress } from '../src/seams';
import { makeContext, resetFake, type FakeExtension } from './fake-vscode';

type Handler = (params: { command: string; arguments: unknown[] }, token?: vscode.CancellationToken) => unknown;

/** Stands in for vscode-languageclient's LanguageClient. */
export class FakeClient implements LanguageClientLike {
  running = false;
  stopped = false;
  requests: { method: string; params: { command: string; arguments: unknown[] }; token?: vscode.CancellationToken }[] = [];
  private listeners: ((s: ClientState) => void)[] = [];
  private progressListeners: ((p: ServerProgress) => void)[] = [];
  /** Tokens the extension sent `window/workDoneProgress/cancel` for. */
  cancelledProgress: ProgressToken[] = [];

  constructor(
    readonly spec: ClientSpec,
    private readonly handlers: Map<string, Handler>,
    private readonly startError?: Error,
  ) {}

  async start(): Promise<void> {
    this.emit('starting');
    if (this.startError) {
      this.emit('stopped');
      throw this.startError;
    }
    this.running = true;
    this.emit('running');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    this.emit('stopped');
  }

  async sendRequest<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
    const p = params as { command: string; arguments: unknown[] };
    this.requests.push({ method, params: p, token });
    const handler = this.handlers.get(p.command);
    if (!handler) throw new Error(`no fake handler for ${p.command}`);
    return (await handler(p, token)) as R;
  }

  onDidChangeState(listener: (s: ClientState) => void): vscode.Disposable {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  isRunning(): boolean {
    return this.running;
  }

  onServerProgress(listener: (p: ServerProgress) => void): vscode.Disposable {
    this.progressListeners.push(listener);
    return { dispose: () => (this.progressListeners = this.progressListeners.filter((l) => l !== listener)) };
  }

  cancelServerProgress(token: ProgressToken): void {
    this.cancelledProgress.push(token);
  }

  /** Plays the server sending `$/progress`. */
  emitProgress(p: ServerProgress): void {
    for (const l of [...this.progressListeners]) l(p);
  }

  private emit(s: ClientState): void {
    for (const l of [...this.listeners]) l(s);
  }
}

export interface Harness {
  fake: ReturnType<typeof resetFake>;
  context: ReturnType<typeof makeContext>;
  ext: WarpCtExtension;
  clients: FakeClient[];
  processCalls: { command: string; args: string[]; cwd: string }[];
  handlers: Map<string, Handler>;
  /** The most recently created client. */
  readonly client: FakeClient;
}

export interface HarnessOptions {
  /** Answer to `<python> -c "import warp_ct"` per interpreter (default: installed everywhere). */
  importCheck?: (python: string) => ProcessResult;
  startError?: Error;
  /** Runs before the extension activates (set config, folders, editors, extensions). */
  before?: (f: Harness['fake']) => void;
  context?: ReturnType<typeof makeContext>;
  activate?: boolean;
}

export const INSTALLED: ProcessResult = { code: 0, stdout: '', stderr: '' };
export const NOT_INSTALLED: ProcessResult = {
  code: 1,
  stdout: '',
  stderr: 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nModuleNotFoundError: No module named \'warp_ct\'\n',
};
export const NO_SUCH_FILE: ProcessResult = { code: null, stdout: '', stderr: '', errorCode: 'ENOENT', errorMessage: 'spawn ENOENT' };

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = resetFake();
  options.before?.(fake);
  const context = options.context ?? makeContext();
  const clients: FakeClient[] = [];
  const processCalls: Harness['processCalls'] = [];
  const handlers = new Map<string, Handler>();
  const ext = new WarpCtExtension(context as unknown as vscode.ExtensionContext, {
    createClient: (spec) => {
      const c = new FakeClient(spec, handlers, options.startError);
      clients.push(c);
      return c;
    },
    runProcess: async (command, args, opts) => {
      processCalls.push({ command, args, cwd: opts.cwd });
      return (options.importCheck ?? (() => INSTALLED))(command);
    },
  });
  const h: Harness = {
    fake,
    context,
    ext,
    clients,
    processCalls,
    handlers,
    get client() {
      const c = clients[clients.length - 1];
      if (!c) throw new Error('no language client was created');
      return c;
    },
  };
  if (options.activate !== false) await ext.activate();
  return h;
}

/** A fake `ms-python.python` extension whose active interpreter is `python`. */
export function pythonExtension(
  python: string,
  opts: { active?: boolean; api?: 'environments' | 'settings'; throws?: boolean } = {},
): FakeExtension & { change(next: string): void } {
  const listeners: ((e: unknown) => void)[] = [];
  let current = python;
  const onDidChange = (l: (e: unknown) => void) => {
    listeners.push(l);
    return { dispose() {} };
  };
  const api =
    opts.api === 'settings'
      ? { settings: { getExecutionDetails: () => ({ execCommand: [current] }), onDidChangeExecutionDetails: onDidChange } }
      : {
          environments: {
            getActiveEnvironmentPath: () => {
              if (opts.throws) throw new Error('python extension exploded');
              return { id: 'env', path: current };
            },
            resolveEnvironment: async (env: { path: string }) => ({ executable: { uri: { fsPath: env.path } } }),
            onDidChangeActiveEnvironmentPath: onDidChange,
          },
        };
  const ext = {
    id: 'ms-python.python',
    isActive: opts.active ?? true,
    exports: api as unknown,
    activations: 0,
    async activate() {
      ext.activations++;
      ext.isActive = true;
      return api;
    },
    change(next: string) {
      current = next;
      for (const l of listeners) l({ path: next });
    },
  };
  return ext;
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}
