// What a program prints cannot drive the terminal the CLI writes to: escape sequences (7-bit and 8-bit), C0 and
// C1 controls are removed or written out, tab, newline and colours stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripAnsi, terminalSafe } from '../../../src/core/noise/index';

// eslint-disable-next-line no-control-regex
const DRIVES_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test('terminalSafe: no control but tab and newline reaches the terminal; colours stay; C1 is written as \\u00XX', () => {
  const hostile = [
    '\x9b2J\x9b1;1Hspoofed', // 8-bit CSI: clear the screen, move home
    'fake\b\b\b\breal', // backspaces over the line
    'progress\roverwritten', // CR back to the line's start
    '\x1b]0;title\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', // OSC title and hyperlink
    '\x1b[2J\x1b[1A\x1b[Kcursor', // 7-bit CSI moves
    '\x1bPq#0;1;1\x1b\\sixel', // DCS
    '\x1b[6n\x1b[c\x05answer', // requests the terminal answers, ENQ
    'bell\x07nul\x00del\x7fsi\x0fso\x0e\x9d8;;x\x9c',
  ];
  for (const s of hostile) {
    const safe = terminalSafe(s);
    assert.doesNotMatch(safe, DRIVES_TERMINAL, JSON.stringify(safe));
    // the sequences' introducers are all gone or written out: nothing of them can start one
    assert.ok(!safe.includes('\x1b') && !safe.includes('\x9b'), JSON.stringify(safe));
  }
  assert.equal(terminalSafe('fake\b\b\b\breal'), 'fakereal');
  assert.equal(terminalSafe('progress\roverwritten'), 'progressoverwritten');
  assert.equal(terminalSafe('\x9b2Jspoof'), '\\u009b2Jspoof');
  assert.equal(
    terminalSafe('\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\tok\n'),
    '\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\tok\n',
  );
  assert.equal(terminalSafe('plain text, ünïcödé ✓'), 'plain text, ünïcödé ✓');
  // JSON: C0 is already escaped by JSON.stringify; C1 written as \u00XX keeps it exact
  const json = JSON.stringify({ out: '\x9b2J\b' });
  assert.deepEqual(JSON.parse(terminalSafe(json)), { out: '\x9b2J\b' });
});

test('stripAnsi also removes 8-bit CSI and OSC sequences', () => {
  assert.equal(stripAnsi('\x9b2J\x9b1;1Hspoofed'), 'spoofed');
  assert.equal(stripAnsi('\x9d0;title\x9cok'), 'ok');
  assert.equal(stripAnsi('\x1b[1mbold\x1b[0m'), 'bold');
});
