import { promises as fs } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

/**
 * The probe's HTML reports (the measure timeline, the levers ledger, ...) in webview panels beside
 * the code. One panel per `key`: showing a report of the same kind again replaces the page in the
 * panel that is already open instead of opening another. The pages are self-contained (inline CSS
 * and SVG); scripts stay off.
 */
export interface ReportOptions {
  /** One panel per key, e.g. 'timeline' or 'levers'. */
  key: string;
  /** The panel's tab title. */
  title: string;
  /** Keep the focus in the editor (default true: the report opens beside the code). */
  preserveFocus?: boolean;
}

export const REPORT_VIEW_TYPE = 'warpCt.report';

/**
 * The page as the webview shows it: a Content-Security-Policy that allows only inline styles and
 * images (no scripts, no network), inserted at the top of `<head>` (or of the page when it has none).
 */
export function webviewHtml(html: string, cspSource: string): string {
  const csp =
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ` +
    `style-src 'unsafe-inline' ${cspSource}; img-src ${cspSource} data:; font-src ${cspSource};">`;
  const head = /<head[^>]*>/i.exec(html);
  if (head) return html.slice(0, head.index + head[0].length) + csp + html.slice(head.index + head[0].length);
  return csp + html;
}

export class ReportViews implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();

  constructor(private readonly log?: vscode.LogOutputChannel) {}

  /** Opens (or refreshes) the panel for `options.key` with the HTML file at `htmlPath`. */
  async show(htmlPath: string, options: ReportOptions): Promise<vscode.WebviewPanel | undefined> {
    let html: string;
    try {
      html = await fs.readFile(htmlPath, 'utf8');
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      this.log?.error(`Cannot read the report ${htmlPath}: ${text}`);
      void vscode.window.showErrorMessage(`Warp: cannot open the report (${text}).`);
      return undefined;
    }
    const preserveFocus = options.preserveFocus ?? true;
    let panel = this.panels.get(options.key);
    if (panel) {
      panel.reveal(undefined, preserveFocus);
    } else {
      panel = vscode.window.createWebviewPanel(
        REPORT_VIEW_TYPE,
        options.title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
        { enableScripts: false, enableFindWidget: true, localResourceRoots: [vscode.Uri.file(path.dirname(htmlPath))] },
      );
      const created = panel;
      this.panels.set(options.key, created);
      created.onDidDispose(() => {
        if (this.panels.get(options.key) === created) this.panels.delete(options.key);
      });
    }
    panel.title = options.title;
    panel.webview.html = webviewHtml(html, panel.webview.cspSource);
    this.log?.info(`Showing ${htmlPath} in the "${options.title}" panel.`);
    return panel;
  }

  /** The open panel for a key, if any. */
  panel(key: string): vscode.WebviewPanel | undefined {
    return this.panels.get(key);
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) panel.dispose();
    this.panels.clear();
  }
}
