/**
 * A small fake of the `vscode` module for unit tests (VS Code itself cannot be downloaded here).
 * The test bundles alias `vscode` to this file; tests drive and inspect it through `fake`.
 * Only what the extension uses is implemented.
 */
import * as nodePath from 'path';

// ------------------------------------------------------------------ basic types

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', nodePath.resolve(p));
  }
  static parse(s: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/)?(.*)$/i.exec(s);
    return m ? new Uri(m[1], m[2]) : new Uri('file', s);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}

export interface FakeWebviewPanel {
  viewType: string;
  title: string;
  showOptions: unknown;
  options: unknown;
  webview: { html: string; cspSource: string };
  reveals: number;
  disposed: boolean;
  reveal(column?: unknown, preserveFocus?: boolean): void;
  onDidDispose(listener: () => void): Disposable;
  dispose(): void;
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

// ------------------------------------------------------------------ recorded state

export interface ShownMessage {
  kind: 'info' | 'warning' | 'error';
  message: string;
  items: string[];
}

export interface FakeStatusBarItem {
  id: string;
  alignment: StatusBarAlignment;
  priority?: number;
  name?: string;
  text: string;
  tooltip?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface FakeOutputChannel {
  name: string;
  lines: string[];
  shown: number;
  append(s: string): void;
  appendLine(s: string): void;
  info(s: string): void;
  warn(s: string): void;
  error(s: string): void;
  debug(s: string): void;
  trace(s: string): void;
  show(preserveFocus?: boolean): void;
  hide(): void;
  clear(): void;
  replace(s: string): void;
  dispose(): void;
  logLevel: number;
  onDidChangeLogLevel(): Disposable;
}

export interface FakeTextDocument {
  uri: Uri;
  languageId: string;
  fileName: string;
}

export interface FakeExtension {
  id: string;
  isActive: boolean;
  exports: unknown;
  activate(): Promise<unknown>;
}

export type OpenDialogOptions = {
  canSelectFiles?: boolean;
  canSelectFolders?: boolean;
  canSelectMany?: boolean;
  openLabel?: string;
  title?: string;
  filters?: Record<string, string[]>;
};

type InputBoxOptions = {
  title?: string;
  prompt?: string;
  value?: string;
  placeHolder?: string;
  validateInput?(value: string): string | undefined | null | Thenable<string | undefined | null>;
};

type Thenable<T> = PromiseLike<T>;

class FakeState {
  /** Settings by full key, e.g. `warpCt.interpreter`. */
  config = new Map<string, unknown>();
  trusted = true;
  workspaceFolders: { uri: Uri; name: string; index: number }[] | undefined = undefined;
  activeTextEditor: { document: FakeTextDocument } | undefined = undefined;
  extensions = new Map<string, FakeExtension>();

  messages: ShownMessage[] = [];
  /** Decides which button a shown message "clicks" (default: dismissed). */
  messageAnswer: (m: ShownMessage) => string | undefined = () => undefined;
  inputBoxes: InputBoxOptions[] = [];
  /** Answers for successive input boxes; `undefined` (or running out) means the user pressed Escape. */
  inputBoxAnswers: (string | undefined)[] = [];
  quickPickAnswer: (items: unknown[]) => unknown = () => undefined;
  openDialogs: OpenDialogOptions[] = [];
  /** Answers an open (file/folder) dialog; `undefined` means the user cancelled it. */
  openDialogAnswer: (options: OpenDialogOptions) => Uri[] | undefined = () => undefined;
  progress: {
    options: { location: ProgressLocation; title?: string; cancellable?: boolean };
    tokenSource: CancellationTokenSource;
    reports: { message?: string; increment?: number }[];
    done: boolean;
  }[] = [];
  /** Set to cancel the progress token right after the task starts. */
  cancelProgress = false;

  commands = new Map<string, (...args: unknown[]) => unknown>();
  executedCommands: { id: string; args: unknown[] }[] = [];
  statusBarItems: FakeStatusBarItem[] = [];
  outputChannels: FakeOutputChannel[] = [];
  terminals: { name?: string; sent: string[]; shown: boolean }[] = [];
  clipboard = '';
  openedExternal: Uri[] = [];
  webviewPanels: FakeWebviewPanel[] = [];
  watchers: string[] = [];

  readonly onDidChangeConfiguration = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  readonly onDidGrantWorkspaceTrust = new EventEmitter<void>();

  /** Changes settings and fires `onDidChangeConfiguration` as VS Code would. */
  setConfig(values: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(values)) this.config.set(k, v);
    const keys = Object.keys(values);
    this.onDidChangeConfiguration.fire({
      affectsConfiguration: (section: string) => keys.some((k) => k === section || k.startsWith(`${section}.`)),
    });
  }

  openPythonFile(file: string): FakeTextDocument {
    const doc = { uri: Uri.file(file), languageId: 'python', fileName: nodePath.resolve(file) };
    this.activeTextEditor = { document: doc };
    return doc;
  }

  messagesOf(kind: ShownMessage['kind']): ShownMessage[] {
    return this.messages.filter((m) => m.kind === kind);
  }
}

export let fake = new FakeState();

/** Fresh fake state for each test (keeps the event emitters' identity irrelevant: new ones are made). */
export function resetFake(): FakeState {
  fake = new FakeState();
  return fake;
}

// ------------------------------------------------------------------ namespaces

/** Any `onDid…`/`onWill…` event the fake does not implement is a no-op (vscode-languageclient subscribes to many). */
function withNoopEvents<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      if (typeof prop === 'string' && !(prop in obj) && /^(on(Did|Will)|register)/.test(prop)) return () => new Disposable();
      return Reflect.get(obj, prop, receiver);
    },
  });
}

export const languages = withNoopEvents({});
export const notebooks = withNoopEvents({});

function config(section: string) {
  const full = (key: string) => (section ? `${section}.${key}` : key);
  return {
    get<T>(key: string, defaultValue?: T): T | undefined {
      return fake.config.has(full(key)) ? (fake.config.get(full(key)) as T) : defaultValue;
    },
    has(key: string): boolean {
      return fake.config.has(full(key));
    },
    inspect() {
      return undefined;
    },
    async update(key: string, value: unknown): Promise<void> {
      fake.setConfig({ [full(key)]: value });
    },
  };
}

export const workspace = withNoopEvents({
  getConfiguration: (section?: string, _scope?: unknown) => config(section ?? ''),
  get isTrusted() {
    return fake.trusted;
  },
  get workspaceFolders() {
    return fake.workspaceFolders;
  },
  getWorkspaceFolder(uri: Uri) {
    return fake.workspaceFolders?.find(
      (f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + nodePath.sep),
    );
  },
  onDidChangeConfiguration: (l: Listener<{ affectsConfiguration(section: string): boolean }>) =>
    fake.onDidChangeConfiguration.event(l),
  onDidGrantWorkspaceTrust: (l: Listener<void>) => fake.onDidGrantWorkspaceTrust.event(l),
  createFileSystemWatcher(glob: string) {
    fake.watchers.push(glob);
    return { glob, dispose() {}, onDidCreate: () => new Disposable(), onDidChange: () => new Disposable(), onDidDelete: () => new Disposable() };
  },
  textDocuments: [] as unknown[],
  notebookDocuments: [] as unknown[],
});

function show(kind: ShownMessage['kind']) {
  return async (message: string, ...rest: unknown[]): Promise<string | undefined> => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    const shown = { kind, message, items };
    fake.messages.push(shown);
    const answer = fake.messageAnswer(shown);
    return answer !== undefined && items.includes(answer) ? answer : undefined;
  };
}

export const window = withNoopEvents({
  get activeTextEditor() {
    return fake.activeTextEditor;
  },
  showInformationMessage: show('info'),
  showWarningMessage: show('warning'),
  showErrorMessage: show('error'),
  async showInputBox(options: InputBoxOptions): Promise<string | undefined> {
    fake.inputBoxes.push(options);
    const answer = fake.inputBoxAnswers.shift();
    if (answer !== undefined && options.validateInput) {
      const problem = await options.validateInput(answer);
      if (problem) throw new Error(`fake input box: answer ${JSON.stringify(answer)} is invalid: ${problem}`);
    }
    return answer;
  },
  async showQuickPick(items: unknown[]): Promise<unknown> {
    return fake.quickPickAnswer(items);
  },
  async showOpenDialog(options: OpenDialogOptions): Promise<Uri[] | undefined> {
    fake.openDialogs.push(options);
    return fake.openDialogAnswer(options);
  },
  async withProgress<R>(
    options: { location: ProgressLocation; title?: string; cancellable?: boolean },
    task: (progress: { report(v: { message?: string; increment?: number }): void }, token: CancellationTokenSource['token']) => Thenable<R>,
  ): Promise<R> {
    const tokenSource = new CancellationTokenSource();
    const entry = { options, tokenSource, reports: [] as { message?: string; increment?: number }[], done: false };
    fake.progress.push(entry);
    const running = task({ report: (v: { message?: string; increment?: number }) => entry.reports.push(v) }, tokenSource.token);
    if (fake.cancelProgress) tokenSource.cancel();
    try {
      return await running;
    } finally {
      entry.done = true;
    }
  },
  createOutputChannel(name: string, _options?: unknown): FakeOutputChannel {
    const ch: FakeOutputChannel = {
      name,
      lines: [],
      shown: 0,
      append: (s) => ch.lines.push(s),
      appendLine: (s) => ch.lines.push(s),
      info: (s) => ch.lines.push(`[info] ${s}`),
      warn: (s) => ch.lines.push(`[warn] ${s}`),
      error: (s) => ch.lines.push(`[error] ${s}`),
      debug: (s) => ch.lines.push(`[debug] ${s}`),
      trace: (s) => ch.lines.push(`[trace] ${s}`),
      show: () => {
        ch.shown++;
      },
      hide: () => undefined,
      clear: () => {
        ch.lines = [];
      },
      replace: (s) => {
        ch.lines = [s];
      },
      dispose: () => undefined,
      logLevel: 3,
      onDidChangeLogLevel: () => new Disposable(),
    };
    fake.outputChannels.push(ch);
    return ch;
  },
  createStatusBarItem(id: string, alignment: StatusBarAlignment, priority?: number): FakeStatusBarItem {
    const item: FakeStatusBarItem = {
      id,
      alignment,
      priority,
      text: '',
      visible: false,
      show: () => {
        item.visible = true;
      },
      hide: () => {
        item.visible = false;
      },
      dispose: () => {
        item.visible = false;
      },
    };
    fake.statusBarItems.push(item);
    return item;
  },
  createTerminal(options?: { name?: string }) {
    const t = { name: options?.name, sent: [] as string[], shown: false };
    fake.terminals.push(t);
    return {
      sendText: (text: string) => t.sent.push(text),
      show: () => {
        t.shown = true;
      },
      dispose: () => undefined,
    };
  },
  createWebviewPanel(viewType: string, title: string, showOptions: unknown, options?: unknown): FakeWebviewPanel {
    const disposed = new EventEmitter<void>();
    const panel: FakeWebviewPanel = {
      viewType,
      title,
      showOptions,
      options,
      webview: { html: '', cspSource: 'fake-webview:' },
      reveals: 0,
      disposed: false,
      reveal: () => {
        panel.reveals++;
      },
      onDidDispose: (listener) => disposed.event(listener),
      dispose: () => {
        if (panel.disposed) return;
        panel.disposed = true;
        disposed.fire();
      },
    };
    fake.webviewPanels.push(panel);
    return panel;
  },
  visibleTextEditors: [] as unknown[],
  tabGroups: withNoopEvents({ all: [] as unknown[] }),
});

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown): Disposable {
    if (fake.commands.has(id)) throw new Error(`command ${id} already registered`);
    fake.commands.set(id, fn);
    return new Disposable(() => fake.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    fake.executedCommands.push({ id, args });
    const fn = fake.commands.get(id);
    return fn ? await fn(...args) : undefined;
  },
};

export const extensions = {
  getExtension(id: string): FakeExtension | undefined {
    return fake.extensions.get(id);
  },
};

export const env = {
  appName: 'Visual Studio Code (fake)',
  language: 'en',
  machineId: 'fake-machine',
  sessionId: 'fake-session',
  uiKind: 1,
  clipboard: {
    async writeText(text: string): Promise<void> {
      fake.clipboard = text;
    },
    async readText(): Promise<string> {
      return fake.clipboard;
    },
  },
  async openExternal(uri: Uri): Promise<boolean> {
    fake.openedExternal.push(uri);
    return true;
  },
};

// ------------------------------------------------------------------ extension context

export class Memento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, defaultValue?: T): T | undefined {
    return this.values.has(key) ? (structuredClone(this.values.get(key)) as T) : defaultValue;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, structuredClone(value));
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
}

export function makeContext(extensionPath = '/opt/vscode/extensions/warp-ct') {
  return {
    subscriptions: [] as { dispose(): unknown }[],
    workspaceState: new Memento(),
    globalState: new Memento(),
    extensionUri: Uri.file(extensionPath),
    extensionPath: nodePath.resolve(extensionPath),
  };
}

// ------------------------------------------------------------------ stubs vscode-languageclient subclasses at load time

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}
export class Diagnostic {}
export class CodeAction {}
export class CodeLens {}
export class CompletionItem {}
export class DocumentLink {}
export class InlayHint {}
export class CallHierarchyItem {}
export class TypeHierarchyItem {}
export class SymbolInformation {}
export class TabInputText {}
export class TabInputTextDiff {}
export class TabInputNotebook {}
export class TabInputCustom {}
export enum LogLevel {
  Off = 0,
  Trace = 1,
  Debug = 2,
  Info = 3,
  Warning = 4,
  Error = 5,
}
export class CodeActionKind {
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  static readonly RefactorExtract = new CodeActionKind('refactor.extract');
  static readonly RefactorInline = new CodeActionKind('refactor.inline');
  static readonly RefactorMove = new CodeActionKind('refactor.move');
  static readonly RefactorRewrite = new CodeActionKind('refactor.rewrite');
  static readonly Source = new CodeActionKind('source');
  static readonly SourceOrganizeImports = new CodeActionKind('source.organizeImports');
  static readonly SourceFixAll = new CodeActionKind('source.fixAll');
  static readonly Notebook = new CodeActionKind('notebook');
  constructor(readonly value: string) {}
  append(part: string): CodeActionKind {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other: CodeActionKind): boolean {
    return this.value === other.value || other.value.startsWith(`${this.value}.`);
  }
  intersects(other: CodeActionKind): boolean {
    return this.contains(other) || other.contains(this);
  }
}

/** The VS Code version the fake pretends to be: the lowest one `engines.vscode` allows. */
export const version = '1.91.0';
