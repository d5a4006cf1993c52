// Test only, never shipped: test/vscode/ui/j-agent-confirm.ui.mjs installs it for its own window (the workbench
// payload keeps one extensionDevelopmentPath, Kernel Runner's). code-server's VS Code has no language model; this is
// one, with scripted answers, registered through VS Code's language model chat provider API, so that agent mode
// (Copilot Chat's agent, built into VS Code) has a model to run: offered Kernel Runner's submit tool, it calls it
// (mode from the prompt, "mode=profile"; default test); once the tool's result is in the conversation it reports the
// answer's summary and run id, or that the tool did not run. Agent mode does the rest: it offers the tools, shows
// the tool's confirmation (prepareInvocation) in the chat, invokes it and sends its result back.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- VS Code loads an extension's main with require
const vscode = require('vscode');

const VENDOR = 'kernel-runner-test';
const SUBMIT = 'kernelRunner_submit';

const model = {
  id: 'scripted-agent',
  name: 'Kernel Runner Scripted Agent',
  family: 'kernel-runner-scripted',
  version: '1',
  tooltip: 'Test model: calls kernelRunner_submit, then reports its answer',
  maxInputTokens: 200000,
  maxOutputTokens: 8000,
  capabilities: { toolCalling: true, imageInput: false },
};

const textOf = (parts) => parts.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

/** The model's next turn: a tool call for a fresh prompt, a report once the tool's result is in. */
function scriptedTurn(messages, tools) {
  const last = messages[messages.length - 1];
  const result = last?.content.find((p) => p instanceof vscode.LanguageModelToolResultPart);
  if (result) {
    const answer = textOf(result.content);
    try {
      const parsed = JSON.parse(answer);
      return new vscode.LanguageModelTextPart(
        `Kernel Runner answered: ${parsed.summary ?? parsed.outcome} (run_id ${parsed.run_id}, ${parsed.file}, ${parsed.mode}).`,
      );
    } catch {
      return new vscode.LanguageModelTextPart(`The submission did not run: ${answer.slice(0, 300)}`);
    }
  }
  if (!tools.includes(SUBMIT))
    return new vscode.LanguageModelTextPart(`No ${SUBMIT} among the tools offered (${tools.join(', ')}).`);
  const user = [...messages].reverse().find((m) => m.role === vscode.LanguageModelChatMessageRole.User);
  const mode = /mode=(\w+)/.exec(user ? textOf(user.content) : '')?.[1] ?? 'test';
  return new vscode.LanguageModelToolCallPart(`call-${messages.length}-${mode}`, SUBMIT, { mode });
}

const changed = new vscode.EventEmitter();

const provider = {
  onDidChangeLanguageModelChatInformation: changed.event,
  provideLanguageModelChatInformation() {
    return [model];
  },
  async provideLanguageModelChatResponse(_model, messages, options, progress) {
    const tools = (options.tools ?? []).map((t) => t.name);
    progress.report(scriptedTurn(messages, tools));
  },
  async provideTokenCount(_model, text) {
    return Math.ceil((typeof text === 'string' ? text : textOf(text.content)).length / 4);
  },
};

function activate(context) {
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider(VENDOR, provider),
    // listed in the palette once agent mode takes requests without the setup (see package.json's when)
    vscode.commands.registerCommand('kernelRunnerTest.agentReady', () => undefined),
  );
  // the workbench lists a vendor's models when asked or told: tell it, now that the provider is registered
  changed.fire();
}

module.exports = { activate, deactivate() {} };
