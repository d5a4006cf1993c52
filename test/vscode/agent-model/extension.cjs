// Test only, never shipped: test/vscode/ui/j-agent-confirm.ui.mjs installs it for its own window (the workbench
// payload takes one extensionDevelopmentPath, Kernel Runner's).
// code-server's VS Code has no model, and its agent mode is Copilot Chat's, which stays disabled until a GitHub
// sign-in completes the chat setup. So this extension brings both halves of an agent, through the public API:
// - a language model with scripted answers (vscode.lm.registerLanguageModelChatProvider): offered Kernel Runner's
//   submit tool, it calls it (mode from the prompt, "mode=profile"; default test); once the tool's result is in the
//   conversation it reports the answer's summary and run id, or that the tool did not run;
// - a chat participant, @krtest, that runs that model in the loop agent mode runs: the tools offered are
//   vscode.lm.tools, each tool call goes to vscode.lm.invokeTool with the chat request's toolInvocationToken, so the
//   chat shows the tool's own confirmation (prepareInvocation) inline, and its result goes back to the model.
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

/** @krtest: the model and the tools in a loop, as agent mode runs them. */
async function agent(request, _context, stream, token) {
  const [lm] = await vscode.lm.selectChatModels({ vendor: VENDOR, id: model.id });
  if (!lm) throw new Error('the scripted model is not registered');
  const tools = vscode.lm.tools
    .filter((t) => t.name.startsWith('kernelRunner_'))
    .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const messages = [vscode.LanguageModelChatMessage.User(request.prompt)];
  for (let turn = 0; turn < 4; turn++) {
    const response = await lm.sendRequest(messages, { tools }, token);
    const calls = [];
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) stream.markdown(part.value);
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    if (!calls.length) return {};
    messages.push(vscode.LanguageModelChatMessage.Assistant(calls));
    for (const call of calls) {
      let content;
      try {
        const result = await vscode.lm.invokeTool(
          call.name,
          { input: call.input, toolInvocationToken: request.toolInvocationToken },
          token,
        );
        content = result.content;
      } catch (err) {
        content = [new vscode.LanguageModelTextPart(`${err?.name ?? 'Error'}: ${err?.message ?? err}`)];
      }
      messages.push(
        vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, content)]),
      );
    }
  }
  return {};
}

function activate(context) {
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider(VENDOR, provider),
    vscode.chat.createChatParticipant('kernelRunnerTest.agent', agent),
  );
  // the workbench lists a vendor's models when asked or told: tell it, now that the provider is registered
  changed.fire();
}

module.exports = { activate, deactivate() {} };
