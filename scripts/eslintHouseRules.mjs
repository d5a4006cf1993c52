// The house's own ESLint rules (plugin `house`, configured in eslint.config.js, proven by test/unit/lint/houseRules.test.ts):
// - command-ids: a command is named through src/extension/commandIds.ts (commandId('showOutput')), never by a
//   'kernelRunner.…' string: any string equal to a command package.json contributes, and any 'kernelRunner.…'
//   string where a command goes (a `command` property, executeCommand/registerCommand's first argument). A tree
//   item's contextValue is the one place such a string names something else (package.json's `viewItem`).
// - ui-calls: VS Code's window.show* calls (notifications, pickers, input boxes, dialogs, documents) are made in
//   src/extension/ui.ts only, where a test in the extension host can see and answer them.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const CONTRIBUTED = new Set(manifest.contributes.commands.map((c) => c.command));
const PREFIX = 'kernelRunner.';

/** The string a literal or a template without substitutions holds; for a template with them, its first part. */
function stringOf(node) {
  if (node.type === 'Literal' && typeof node.value === 'string') return { text: node.value, whole: true };
  if (node.type === 'TemplateLiteral')
    return { text: node.quasis[0].value.cooked ?? '', whole: node.expressions.length === 0 };
  return undefined;
}

const nameOf = (node) =>
  node.type === 'Identifier'
    ? node.name
    : node.type === 'Literal' && typeof node.value === 'string'
      ? node.value
      : undefined;

function isCommandPosition(node) {
  const p = node.parent;
  if (p.type === 'Property' && p.value === node) return nameOf(p.key) === 'command';
  if (p.type === 'AssignmentExpression' && p.right === node && p.left.type === 'MemberExpression')
    return nameOf(p.left.property) === 'command';
  if (p.type === 'CallExpression' && p.arguments[0] === node && p.callee.type === 'MemberExpression')
    return ['executeCommand', 'registerCommand'].includes(nameOf(p.callee.property));
  return false;
}

function isContextValue(node) {
  const p = node.parent.type === 'ConditionalExpression' ? node.parent.parent : node.parent;
  if (p.type === 'AssignmentExpression' && p.left.type === 'MemberExpression')
    return nameOf(p.left.property) === 'contextValue';
  if (p.type === 'Property') return nameOf(p.key) === 'contextValue';
  return false;
}

const commandIds = {
  meta: {
    type: 'problem',
    docs: { description: "Commands are named through src/extension/commandIds.ts, not by 'kernelRunner.…' strings" },
    messages: {
      raw: "Name the command with commandId('{{name}}') from src/extension/commandIds.ts, not by the string '{{text}}': the ids are checked against package.json there.",
    },
    schema: [],
  },
  create(context) {
    const check = (node) => {
      const s = stringOf(node);
      if (!s || !s.text.startsWith(PREFIX)) return;
      const flagged = (s.whole && CONTRIBUTED.has(s.text) && !isContextValue(node)) || isCommandPosition(node);
      if (flagged)
        context.report({ node, messageId: 'raw', data: { text: s.text, name: s.text.slice(PREFIX.length) } });
    };
    return { Literal: check, TemplateLiteral: check };
  },
};

/** `window` itself, or `<anything>.window` (vscode.window). */
const isWindow = (node) =>
  (node.type === 'Identifier' && node.name === 'window') ||
  (node.type === 'MemberExpression' && nameOf(node.property) === 'window');

const uiCalls = {
  meta: {
    type: 'problem',
    docs: { description: 'window.show* only in src/extension/ui.ts' },
    messages: {
      direct:
        'Show this through src/extension/ui.ts (notify, pickOne, askText, pickFiles, pickSaveFile, showDocument) instead of window.{{name}}: there a test in the extension host can see and answer it.',
    },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        const name = nameOf(node.property);
        if (name?.startsWith('show') && isWindow(node.object))
          context.report({ node, messageId: 'direct', data: { name } });
      },
      VariableDeclarator(node) {
        if (node.id.type !== 'ObjectPattern' || !node.init || !isWindow(node.init)) return;
        for (const p of node.id.properties) {
          const name = p.type === 'Property' ? nameOf(p.key) : undefined;
          if (name?.startsWith('show')) context.report({ node: p, messageId: 'direct', data: { name } });
        }
      },
    };
  },
};

export default { meta: { name: 'house' }, rules: { 'command-ids': commandIds, 'ui-calls': uiCalls } };
