// The HTML shell of our webview panels: a strict CSP (our own styles and fonts, one script by nonce, nothing else),
// the panel's style sheets and bundle. Only URIs, the nonce and the caller's fixed markup are interpolated here;
// every piece of data travels to the page as a message.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewDocument {
  /** Style sheets under media/. */
  styles: string[];
  /** The bundle under dist/. */
  script: string;
  title: string;
  /** Fixed markup of the body before the script (no data). */
  body: string;
  /** Images from `data:` URLs too (inline SVG charts). */
  dataImages?: boolean;
}

export function webviewDocument(
  webview: vscode.Webview,
  dist: vscode.Uri,
  media: vscode.Uri,
  doc: WebviewDocument,
): string {
  const nonce = randomBytes(18).toString('base64');
  const css = doc.styles.map((name) => webview.asWebviewUri(vscode.Uri.joinPath(media, name)));
  const js = webview.asWebviewUri(vscode.Uri.joinPath(dist, doc.script));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}${doc.dataImages ? ' data:' : ''}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${css.map((u) => `<link rel="stylesheet" href="${u.toString()}">`).join('\n')}
<title>${doc.title}</title>
</head>
<body>
${doc.body}
<script nonce="${nonce}" src="${js.toString()}"></script>
</body>
</html>`;
}
