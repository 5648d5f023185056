import * as path from 'path';
import * as vscode from 'vscode';
import { joinCommandLine, quoteArg, splitCommandLine } from './argv';
import { onPythonInterpreterChange, resolveInterpreter, type Interpreter } from './interpreter';
import type { ClientState, Dependencies, LanguageClientLike, ProgressToken, ServerProgress } from './seams';
import { ReportViews } from './report';
import { readSettings, SECTION, type WarpCtSettings } from './settings';

export const COMMANDS = {
  measure: 'warpCt.measure',
  measureLevers: 'warpCt.measureLevers',
  changeMeasureCommand: 'warpCt.changeMeasureCommand',
  lintWorkspace: 'warpCt.lintWorkspace',
  restartServer: 'warpCt.restartServer',
  showLog: 'warpCt.showLog',
  showMenu: 'warpCt.showMenu',
  showTimeline: 'warpCt.showTimeline',
} as const;

/** Commands the warp-ct server implements (`workspace/executeCommand`). */
export const SERVER_COMMANDS = {
  measure: 'warp-ct.measure',
  /** The measured ledger of option levers (`warp-ct probe levers`). */
  measureLevers: 'warp-ct.measureLevers',
  lintWorkspace: 'warp-ct.lintWorkspace',
  /** The code lenses' command (argument: the summary path); the extension shows the timeline instead. */
  openMeasureReport: 'warp-ct.openMeasureReport',
} as const;

/** Webview panel keys and titles of the probe's HTML reports. */
export const REPORTS = {
  timeline: { key: 'timeline', title: 'Warp: compile-time timeline' },
  levers: { key: 'levers', title: 'Warp: option levers' },
} as const;

/** workspaceState keys. */
export const STATE_KEYS = {
  measureCommand: 'warpCt.measureCommand',
  lastMeasurement: 'warpCt.lastMeasurement',
} as const;

export const SERVER_ARGS = ['-m', 'warp_ct', 'serve'];
/**
 * warp-ct is not on PyPI, so the extension offers to install it from what the user has: a checkout
 * of the repository or a wheel built from one.
 */
export const INSTALL_CHOICES = {
  checkout: 'Install from Checkout…',
  wheel: 'Install from Wheel…',
  interpreter: 'Choose Interpreter',
} as const;

/** What `warp-ct.measure` returns (optional fields may also be null). */
export interface MeasureResult {
  ok: boolean;
  summary: string;
  coldWallS?: number | null;
  warmWallS?: number | null;
  jsonPath?: string | null;
  htmlPath?: string | null;
  summaryPath?: string | null;
  diagnoses?: string[];
  cancelled?: boolean;
  exitCode?: number | null;
}

export interface LintWorkspaceResult {
  files: number;
  findings: number;
}

export type ServerState = 'stopped' | 'starting' | 'running' | 'missing' | 'error';

const REQUEST_CANCELLED = -32800;

export function formatSeconds(s: number): string {
  if (s >= 100) return `${s.toFixed(0)} s`;
  if (s >= 0.095) return `${s.toFixed(1)} s`;
  return `${s.toFixed(2)} s`;
}

/** "cold 4.2 s / warm 0.3 s" (or the part that is known). */
export function formatMeasurement(m: MeasureResult): string | undefined {
  const parts: string[] = [];
  if (typeof m.coldWallS === 'number') parts.push(`cold ${formatSeconds(m.coldWallS)}`);
  if (typeof m.warmWallS === 'number') parts.push(`warm ${formatSeconds(m.warmWallS)}`);
  return parts.length ? parts.join(' / ') : undefined;
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

function isCancellation(err: unknown, token?: vscode.CancellationToken): boolean {
  if (token?.isCancellationRequested) return true;
  if (err instanceof vscode.CancellationError) return true;
  return !!err && typeof err === 'object' && (err as { code?: unknown }).code === REQUEST_CANCELLED;
}

/**
 * The extension: owns the language client (through the `createClient` seam), the commands and the
 * status bar. Everything that touches VS Code goes through the `vscode` module, which the unit tests
 * replace with a fake.
 */
export class WarpCtExtension implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  /** The probe's HTML reports in webviews beside the code (reusable for any report kind). */
  readonly reports: ReportViews;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private client: LanguageClientLike | undefined;
  private clientDisposables: vscode.Disposable[] = [];
  private interpreter: Interpreter | undefined;
  private state: ServerState = 'stopped';
  private stateDetail = '';
  private measuring = false;
  private lastMeasurement: MeasureResult | undefined;
  /** Server progress shown in the status bar (outside measurements). */
  private readonly progressWindows = new Map<ProgressToken, { report(message?: string): void; done(): void }>();
  /** While measuring: where the server's progress goes (the cancellable notification). */
  private measureSink:
    | { report(value: { message?: string; increment?: number }): void; lastPercentage: number; tokens: Set<ProgressToken> }
    | undefined;
  /** Serialises start/stop/restart. */
  private lifecycle: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: Dependencies,
  ) {
    this.output = vscode.window.createOutputChannel('Warp (warp-ct)', { log: true });
    this.statusItem = vscode.window.createStatusBarItem('warpCt.status', vscode.StatusBarAlignment.Left, 10);
    this.statusItem.name = 'Warp compile time';
    this.statusItem.command = COMMANDS.showMenu;
    this.lastMeasurement = context.workspaceState.get<MeasureResult>(STATE_KEYS.lastMeasurement);
    this.reports = new ReportViews(this.output);
    this.disposables.push(this.output, this.statusItem, this.reports);
  }

  /** Registers commands and listeners and starts the server. */
  async activate(): Promise<void> {
    const register = (id: string, fn: (...args: unknown[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    register(COMMANDS.measure, () => this.measure());
    register(COMMANDS.measureLevers, () => this.measure({ levers: true }));
    register(COMMANDS.changeMeasureCommand, () => this.changeMeasureCommand());
    register(COMMANDS.lintWorkspace, () => this.lintWorkspace());
    register(COMMANDS.restartServer, () => this.restart());
    register(COMMANDS.showLog, () => this.output.show(true));
    register(COMMANDS.showMenu, () => this.showMenu());
    register(COMMANDS.showTimeline, () => this.showTimeline());

    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.interpreter`)) void this.restartIfInterpreterChanged();
        else if (e.affectsConfiguration(SECTION)) this.updateStatus();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // Restricted settings (interpreter, probeCommand) now apply from the workspace too.
        void this.restartIfInterpreterChanged();
        this.updateStatus();
      }),
    );
    const pythonListener = await onPythonInterpreterChange(() => void this.restartIfInterpreterChanged());
    if (pythonListener) this.disposables.push(pythonListener);

    this.updateStatus();
    this.statusItem.show();
    await this.start();
  }

  get serverState(): ServerState {
    return this.state;
  }

  get currentInterpreter(): Interpreter | undefined {
    return this.interpreter;
  }

  get statusBarItem(): vscode.StatusBarItem {
    return this.statusItem;
  }

  // ---------------------------------------------------------------- server lifecycle

  start(): Promise<void> {
    return this.serialise(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.serialise(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.serialise(async () => {
      this.output.info('Restarting the warp-ct language server.');
      await this.doStop();
      await this.doStart();
    });
  }

  private serialise(fn: () => Promise<void>): Promise<void> {
    const next = this.lifecycle.then(fn, fn);
    this.lifecycle = next.catch(() => undefined);
    return next;
  }

  private async restartIfInterpreterChanged(): Promise<void> {
    const next = await resolveInterpreter(this.activeResource());
    if (next.path !== this.interpreter?.path || this.state === 'missing') {
      this.output.info(`Interpreter changed to ${next.path} (${describeSource(next)}).`);
      await this.restart();
    }
  }

  private async doStart(): Promise<void> {
    const resource = this.activeResource();
    const interpreter = await resolveInterpreter(resource);
    this.interpreter = interpreter;
    this.setState('starting');
    this.output.info(`Using ${interpreter.path} (${describeSource(interpreter)}).`);

    if (!(await this.checkInstalled(interpreter))) return;

    const launch = { command: interpreter.path, args: [...SERVER_ARGS], cwd: this.context.extensionUri.fsPath };
    this.output.info(`Starting: ${joinCommandLine([launch.command, ...launch.args])}`);
    const watcher = vscode.workspace.createFileSystemWatcher('**/pyproject.toml');
    this.clientDisposables.push(watcher);
    const client = this.deps.createClient({
      id: SECTION,
      name: 'Warp compile time (warp-ct)',
      launch,
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
      ],
      initializationOptions: readSettings(resource),
      configurationSection: SECTION,
      fileWatchers: [watcher],
      outputChannel: this.output,
      // Clicking a measured code lens shows the timeline here rather than the server's markdown summary.
      localCommands: { [SERVER_COMMANDS.openMeasureReport]: () => this.showTimeline() },
    });
    this.client = client;
    this.clientDisposables.push(
      client.onServerProgress((p) => this.handleServerProgress(p)),
      client.onDidChangeState((s: ClientState) => {
        if (this.client !== client) return;
        if (s === 'running') this.setState('running');
        else if (s === 'starting') this.setState('starting');
        else if (this.state === 'running' || this.state === 'starting') this.setState('error', 'the server stopped');
      }),
    );
    try {
      await client.start();
      this.setState('running');
    } catch (err) {
      const text = errorText(err);
      this.output.error(`The warp-ct language server failed to start: ${text}`);
      this.setState('error', text);
      void vscode.window
        .showErrorMessage(`Warp: the warp-ct language server failed to start (${text}).`, 'Show Log', 'Restart Server')
        .then((choice) => {
          if (choice === 'Show Log') this.output.show(true);
          else if (choice === 'Restart Server') void this.restart();
        });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    const disposables = this.clientDisposables;
    this.clientDisposables = [];
    if (client) {
      try {
        await client.stop();
      } catch (err) {
        this.output.warn(`Stopping the server: ${errorText(err)}`);
      }
    }
    for (const d of disposables) d.dispose();
    for (const w of this.progressWindows.values()) w.done();
    this.progressWindows.clear();
    this.setState('stopped');
  }

  /**
   * The server's work-done progress. During a measurement it feeds the measure notification (whose
   * Cancel button then sends `window/workDoneProgress/cancel` for it); otherwise the status bar.
   */
  private handleServerProgress(p: ServerProgress): void {
    const sink = this.measureSink;
    if (sink && (p.kind === 'begin' || sink.tokens.has(p.token))) {
      if (p.kind === 'end') {
        sink.tokens.delete(p.token);
        return;
      }
      sink.tokens.add(p.token);
      let increment: number | undefined;
      if (typeof p.percentage === 'number' && p.percentage > sink.lastPercentage) {
        increment = p.percentage - sink.lastPercentage;
        sink.lastPercentage = p.percentage;
      }
      if (p.message !== undefined || increment !== undefined) sink.report({ message: p.message, increment });
      return;
    }
    if (p.kind === 'begin') {
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: p.title ?? 'warp-ct' },
        (progress) =>
          new Promise<void>((resolve) => {
            this.progressWindows.set(p.token, { report: (message) => progress.report({ message }), done: resolve });
            if (p.message) progress.report({ message: p.message });
          }),
      );
    } else if (p.kind === 'report') {
      this.progressWindows.get(p.token)?.report(p.message);
    } else {
      this.progressWindows.get(p.token)?.done();
      this.progressWindows.delete(p.token);
    }
  }

  /**
   * Checks `<python> -c "import warp_ct"`; when it fails, explains how to install warp-ct and offers to
   * install it from a checkout or a wheel the user picks, or to choose another interpreter.
   */
  private async checkInstalled(interpreter: Interpreter): Promise<boolean> {
    const result = await this.deps.runProcess(interpreter.path, ['-c', 'import warp_ct'], {
      cwd: this.context.extensionUri.fsPath,
      timeoutMs: 30_000,
    });
    if (result.code === 0) return true;

    const hint =
      interpreter.source === 'setting'
        ? 'from the warpCt.interpreter setting'
        : interpreter.source === 'python-extension'
          ? "the Python extension's selected interpreter"
          : 'the default; set warpCt.interpreter or select one with the Python extension';
    if (result.errorCode === 'ENOENT') {
      const message = `Warp: the Python interpreter "${interpreter.path}" (${hint}) was not found, so the warp-ct language server cannot start.`;
      this.output.error(message);
      this.setState('missing', `interpreter "${interpreter.path}" not found`);
      void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
        if (choice === 'Open Settings') void this.openInterpreterSetting();
      });
      return false;
    }

    const stderr = result.stderr.trim();
    const notInstalled = /No module named ['"]?warp_ct/.test(stderr) || stderr === '';
    const lastLine = stderr.split(/\r?\n/).pop() ?? '';
    const how =
      'warp-ct is not on PyPI yet: install it into that interpreter from a checkout of the warp-ct repository ' +
      `(${quoteArg(interpreter.path)} -m pip install -e <checkout>) or from a wheel built there ` +
      `(${quoteArg(interpreter.path)} -m pip install <wheel>), or choose an interpreter that has it.`;
    const message = notInstalled
      ? `Warp: warp-ct is not installed for the Python interpreter "${interpreter.path}" (${hint}). ${how}`
      : `Warp: importing warp_ct with "${interpreter.path}" (${hint}) failed: ${lastLine}. Reinstalling it may help. ${how}`;
    this.output.error(message);
    if (stderr) this.output.error(stderr);
    this.setState('missing', notInstalled ? 'warp-ct is not installed' : `import failed: ${lastLine}`);
    void vscode.window
      .showErrorMessage(message, INSTALL_CHOICES.checkout, INSTALL_CHOICES.wheel, INSTALL_CHOICES.interpreter)
      .then(async (choice) => {
        if (choice === INSTALL_CHOICES.checkout || choice === INSTALL_CHOICES.wheel) {
          await this.installFrom(interpreter.path, choice === INSTALL_CHOICES.checkout ? 'checkout' : 'wheel');
        } else if (choice === INSTALL_CHOICES.interpreter) {
          await this.openInterpreterSetting();
        }
      });
    return false;
  }

  /** Asks for a warp-ct checkout (a folder) or wheel (a `.whl` file), then runs pip for it in a terminal. */
  private async installFrom(interpreterPath: string, kind: 'checkout' | 'wheel'): Promise<void> {
    const picked = await vscode.window.showOpenDialog(
      kind === 'checkout'
        ? { canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Install warp-ct from this checkout', title: 'Warp: a checkout of the warp-ct repository' }
        : { canSelectFolders: false, canSelectFiles: true, canSelectMany: false, openLabel: 'Install this wheel', title: 'Warp: a warp-ct wheel', filters: { 'Python wheel': ['whl'] } },
    );
    if (!picked || picked.length === 0) return;
    const command = this.installCommand(interpreterPath, kind, picked[0].fsPath);
    const terminal = vscode.window.createTerminal({ name: 'Install warp-ct' });
    terminal.show();
    terminal.sendText(command);
    const next = await vscode.window.showInformationMessage(
      'Warp: when the installation has finished, restart the warp-ct server.',
      'Restart Server',
    );
    if (next === 'Restart Server') await this.restart();
  }

  /** `<python> -m pip install -e <checkout>` or `<python> -m pip install <wheel>`, quoted for a shell. */
  installCommand(interpreterPath: string, kind: 'checkout' | 'wheel', target: string): string {
    return `${quoteArg(interpreterPath)} -m pip install ${kind === 'checkout' ? '-e ' : ''}${quoteArg(target)}`;
  }

  private async openInterpreterSetting(): Promise<void> {
    await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.interpreter`);
  }

  // ---------------------------------------------------------------- commands

  /**
   * "Warp: Measure compile time"; with `levers`, "Warp: Measure option levers": the same command
   * measured once per compile option change, the ledger shown in its own panel.
   */
  async measure(options: { changeCommand?: boolean; levers?: boolean } = {}): Promise<MeasureResult | undefined> {
    const levers = options.levers ?? false;
    if (!vscode.workspace.isTrusted) {
      const choice = await vscode.window.showWarningMessage(
        'Warp: measuring compile time runs code from this workspace (the configured command), so it is disabled ' +
          'until you trust the workspace. Linting keeps working.',
        'Manage Workspace Trust',
      );
      if (choice === 'Manage Workspace Trust') await vscode.commands.executeCommand('workbench.trust.manage');
      return undefined;
    }
    if (this.measuring) {
      void vscode.window.showInformationMessage('Warp: a measurement is already running.');
      return undefined;
    }
    const client = this.readyClient();
    if (!client) return undefined;

    const resource = this.activeResource();
    const settings = readSettings(resource);
    const argv = await this.measureCommand(settings, options.changeCommand ?? false);
    if (!argv) return undefined;
    const cwd = this.measureCwd(resource);
    const commandLine = joinCommandLine(argv);
    this.output.info(`Measuring: ${commandLine} (cwd ${cwd ?? 'server default'}, ${settings.samples} samples)`);

    this.measuring = true;
    this.updateStatus();
    let result: MeasureResult;
    let cancelToken: vscode.CancellationToken | undefined;
    try {
      result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: levers
            ? `Warp: measuring option levers of \`${commandLine}\` (the command runs once per lever)`
            : `Warp: measuring compile time of \`${commandLine}\``,
          cancellable: true,
        },
        async (progress, token) => {
          cancelToken = token;
          const sink = { report: (v: { message?: string; increment?: number }) => progress.report(v), lastPercentage: 0, tokens: new Set<ProgressToken>() };
          this.measureSink = sink;
          // The server stops the program on `window/workDoneProgress/cancel`; the request itself is
          // cancelled too ($/cancelRequest, through the token).
          const onCancel = token.onCancellationRequested(() => {
            for (const t of sink.tokens) client.cancelServerProgress(t);
          });
          try {
            return await client.sendRequest<MeasureResult>(
              'workspace/executeCommand',
              {
                command: levers ? SERVER_COMMANDS.measureLevers : SERVER_COMMANDS.measure,
                arguments: [argv, cwd, settings.samples],
              },
              token,
            );
          } finally {
            onCancel.dispose();
            if (this.measureSink === sink) this.measureSink = undefined;
          }
        },
      );
    } catch (err) {
      if (isCancellation(err, cancelToken)) {
        this.output.info('Measurement cancelled.');
        void vscode.window.showInformationMessage('Warp: measurement cancelled.');
      } else {
        const text = errorText(err);
        this.output.error(`Measuring failed: ${text}`);
        void vscode.window.showErrorMessage(`Warp: measuring failed: ${text}`, 'Show Log').then((c) => {
          if (c === 'Show Log') this.output.show(true);
        });
      }
      return undefined;
    } finally {
      this.measuring = false;
      this.updateStatus();
    }

    if (!result || typeof result !== 'object') {
      result = { ok: false, summary: 'the server returned no result' };
    }
    if (result.cancelled) {
      this.output.info('Measurement cancelled.');
      void vscode.window.showInformationMessage('Warp: measurement cancelled.');
      return result;
    }
    if (levers) return this.showLevers(result);
    this.lastMeasurement = result;
    await this.context.workspaceState.update(STATE_KEYS.lastMeasurement, result);
    this.updateStatus();
    this.output.info(`Measurement: ${result.summary}`);
    for (const d of result.diagnoses ?? []) this.output.info(`  ${d}`);

    if (result.ok) {
      // The probe's timeline, beside the code (the focus stays in the editor).
      if (result.htmlPath) await this.reports.show(result.htmlPath, REPORTS.timeline);
      const buttons = result.htmlPath ? ['Open in Browser', 'Change Command'] : ['Change Command'];
      const choice = await vscode.window.showInformationMessage(`Warp: ${result.summary}`, ...buttons);
      if (choice === 'Open in Browser' && result.htmlPath) {
        await vscode.env.openExternal(vscode.Uri.file(result.htmlPath));
      } else if (choice === 'Change Command') {
        await this.changeMeasureCommand();
      }
    } else {
      const choice = await vscode.window.showErrorMessage(`Warp: ${result.summary}`, 'Change Command', 'Show Log');
      if (choice === 'Change Command') await this.changeMeasureCommand();
      else if (choice === 'Show Log') this.output.show(true);
    }
    return result;
  }

  /** The ledger of a levers measurement: its HTML page beside the code, the summary as a message. */
  private async showLevers(result: MeasureResult): Promise<MeasureResult> {
    this.output.info(`Option levers: ${result.summary}`);
    if (!result.ok) {
      const choice = await vscode.window.showErrorMessage(`Warp: ${result.summary}`, 'Show Log');
      if (choice === 'Show Log') this.output.show(true);
      return result;
    }
    if (result.htmlPath) await this.reports.show(result.htmlPath, REPORTS.levers);
    const choice = await vscode.window.showInformationMessage(`Warp: ${result.summary}`, ...(result.htmlPath ? ['Open in Browser'] : []));
    if (choice === 'Open in Browser' && result.htmlPath) await vscode.env.openExternal(vscode.Uri.file(result.htmlPath));
    return result;
  }

  /** "Warp: Show compile-time timeline": the last measurement's HTML timeline, beside the code. */
  async showTimeline(): Promise<vscode.WebviewPanel | undefined> {
    const htmlPath = this.lastMeasurement?.htmlPath;
    if (!htmlPath) {
      void vscode.window.showInformationMessage('Warp: no timeline yet: run "Warp: Measure compile time" first.');
      return undefined;
    }
    return this.reports.show(htmlPath, REPORTS.timeline);
  }

  /** "Warp: Measure compile time (change command)": asks again and measures. */
  async changeMeasureCommand(): Promise<MeasureResult | undefined> {
    return this.measure({ changeCommand: true });
  }

  /**
   * The command to measure: the `warpCt.probeCommand` setting when set, else the one remembered for this
   * workspace, else asked for (and remembered). `change` asks again with the current one pre-filled.
   */
  async measureCommand(settings: WarpCtSettings, change: boolean): Promise<string[] | undefined> {
    if (settings.probeCommand.length > 0) {
      if (!change) return settings.probeCommand;
      const choice = await vscode.window.showInformationMessage(
        `Warp: the measure command comes from the ${SECTION}.probeCommand setting (${joinCommandLine(settings.probeCommand)}). Change it there.`,
        'Open Settings',
      );
      if (choice === 'Open Settings') {
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.probeCommand`);
      }
      return undefined;
    }
    const stored = this.context.workspaceState.get<string[]>(STATE_KEYS.measureCommand);
    if (stored && stored.length > 0 && !change) return stored;

    const initial = stored && stored.length > 0 ? stored : this.defaultMeasureCommand();
    const answer = await vscode.window.showInputBox({
      title: 'Warp: Measure compile time',
      prompt:
        'Command that runs your Warp program. warp-ct runs it (without a shell, from the workspace folder) to time ' +
        'kernel compilation. It is remembered for this workspace; change it with "Warp: Measure compile time (change command)".',
      placeHolder: 'python train.py --steps 1',
      value: initial ? joinCommandLine(initial) : '',
      ignoreFocusOut: true,
      validateInput: (value) => {
        try {
          return splitCommandLine(value).length === 0 ? 'Enter the command that runs your program.' : undefined;
        } catch (err) {
          return `Cannot parse the command: ${errorText(err)}`;
        }
      },
    });
    if (answer === undefined) return undefined;
    let argv: string[];
    try {
      argv = splitCommandLine(answer);
    } catch {
      return undefined;
    }
    if (argv.length === 0) return undefined;
    await this.context.workspaceState.update(STATE_KEYS.measureCommand, argv);
    return argv;
  }

  /** `<interpreter> <active Python file>` (relative to its workspace folder when inside one). */
  defaultMeasureCommand(): string[] | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    const python = this.interpreter?.path ?? 'python3';
    if (!doc || doc.languageId !== 'python' || doc.uri.scheme !== 'file') return undefined;
    const file = doc.uri.fsPath;
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
    const rel = folder ? path.relative(folder.uri.fsPath, file) : file;
    return [python, rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file];
  }

  private measureCwd(resource: vscode.Uri | undefined): string | null {
    const folder = (resource && vscode.workspace.getWorkspaceFolder(resource)) ?? vscode.workspace.workspaceFolders?.[0];
    if (folder) return folder.uri.fsPath;
    if (resource?.scheme === 'file') return path.dirname(resource.fsPath);
    return null;
  }

  /** "Warp: Lint workspace". Static analysis only, so it also runs in untrusted workspaces. */
  async lintWorkspace(): Promise<LintWorkspaceResult | undefined> {
    const client = this.readyClient();
    if (!client) return undefined;
    let result: LintWorkspaceResult;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Warp: linting the workspace', cancellable: true },
        (_p, token) =>
          client.sendRequest<LintWorkspaceResult>(
            'workspace/executeCommand',
            { command: SERVER_COMMANDS.lintWorkspace, arguments: [] },
            token,
          ),
      );
    } catch (err) {
      if (!isCancellation(err)) {
        void vscode.window.showErrorMessage(`Warp: linting the workspace failed: ${errorText(err)}`, 'Show Log');
      }
      return undefined;
    }
    const files = result?.files ?? 0;
    const findings = result?.findings ?? 0;
    const text = `Warp: ${findings} finding${findings === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}.`;
    this.output.info(text);
    const choice = await (findings > 0
      ? vscode.window.showInformationMessage(text, 'Open Problems')
      : vscode.window.showInformationMessage(text));
    if (choice === 'Open Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
    return result;
  }

  private async showMenu(): Promise<void> {
    const items: (vscode.QuickPickItem & { command: string })[] = [
      { label: '$(dashboard) Measure compile time', command: COMMANDS.measure },
      { label: '$(edit) Measure compile time (change command)', command: COMMANDS.changeMeasureCommand },
      { label: '$(beaker) Measure option levers', command: COMMANDS.measureLevers },
      { label: '$(checklist) Lint workspace', command: COMMANDS.lintWorkspace },
      { label: '$(graph) Show compile-time timeline', command: COMMANDS.showTimeline },
      { label: '$(debug-restart) Restart server', command: COMMANDS.restartServer },
      { label: '$(output) Show log', command: COMMANDS.showLog },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: 'Warp compile time (warp-ct)' });
    if (picked) await vscode.commands.executeCommand(picked.command);
  }

  /** The running client, or undefined after telling the user why there is none. */
  private readyClient(): LanguageClientLike | undefined {
    if (this.client && this.state === 'running') return this.client;
    const why =
      this.state === 'missing' ? this.stateDetail : this.state === 'starting' ? 'it is still starting' : this.stateDetail || 'it is not running';
    void vscode.window
      .showErrorMessage(`Warp: the warp-ct language server is not available (${why}).`, 'Restart Server', 'Show Log')
      .then((choice) => {
        if (choice === 'Restart Server') void this.restart();
        else if (choice === 'Show Log') this.output.show(true);
      });
    return undefined;
  }

  private activeResource(): vscode.Uri | undefined {
    return vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  }

  // ---------------------------------------------------------------- status bar

  private setState(state: ServerState, detail = ''): void {
    this.state = state;
    this.stateDetail = detail;
    this.updateStatus();
  }

  updateStatus(): void {
    const item = this.statusItem;
    const measurement = this.lastMeasurement ? formatMeasurement(this.lastMeasurement) : undefined;
    item.backgroundColor = undefined;
    if (this.measuring) {
      item.text = '$(sync~spin) Warp: measuring…';
    } else if (this.state === 'starting') {
      item.text = '$(sync~spin) Warp';
    } else if (this.state === 'running') {
      item.text = measurement ? `$(zap) Warp: ${measurement}` : '$(zap) Warp';
    } else if (this.state === 'missing') {
      item.text = '$(warning) Warp: warp-ct not installed';
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (this.state === 'error') {
      item.text = '$(error) Warp: server stopped';
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else {
      item.text = '$(circle-slash) Warp';
    }
    const lines = [`warp-ct language server: ${this.state}${this.stateDetail ? ` (${this.stateDetail})` : ''}`];
    if (this.interpreter) lines.push(`Interpreter: ${this.interpreter.path} (${describeSource(this.interpreter)})`);
    if (this.lastMeasurement) lines.push(`Last measurement: ${this.lastMeasurement.summary}`);
    if (!vscode.workspace.isTrusted) lines.push('Measuring is disabled until the workspace is trusted.');
    lines.push('Click for Warp commands.');
    item.tooltip = lines.join('\n');
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function describeSource(i: Interpreter): string {
  switch (i.source) {
    case 'setting':
      return 'warpCt.interpreter';
    case 'python-extension':
      return 'Python extension';
    default:
      return 'default';
  }
}
