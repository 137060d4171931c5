import './force-color.js';
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import { Gauge, gaugeBar, gaugeLabel } from '../../src/ui/components/Gauge.js';
import { StatusLine } from '../../src/ui/components/StatusLine.js';
import type { GaugeState } from '../../src/compaction/budget.js';
import { colorTheme, detectColor, plainTheme, ThemeContext } from '../../src/ui/theme.js';
import { session, usage } from './helpers.js';

// SGR foreground colours: 30–37, 90–97, 38;5;n / 38;2;r;g;b
const FG = /\u001b\[(?:3[0-7]|9[0-7]|38;[25];[\d;]+)m/;
const fgCodes = (s: string): string[] => [...s.matchAll(/\u001b\[((?:3[0-7]|9[0-7]|38;[25];[\d;]+))m/g)].map((m) => m[1]!);

function renderGauge(state: GaugeState, percentLeft: number, theme = colorTheme, extra = {}) {
  const r = render(
    <ThemeContext.Provider value={theme}>
      <Gauge usage={usage({ state, percentLeft, ...extra })} />
    </ThemeContext.Provider>,
  );
  const raw = r.lastFrame() ?? '';
  r.unmount();
  return { raw, text: stripAnsi(raw) };
}

describe('the token gauge', () => {
  it('ok: green bar, percent left, nothing else', () => {
    const { raw, text } = renderGauge('ok', 78);
    // the mark: auto compaction fires at 92% used, the tenth cell
    expect(text).toBe('██░░░░░░░│ 78% context left');
    expect(fgCodes(raw)).toContain('32'); // green
  });

  it('a rough figure (the tokenizer not loaded yet) shows no percentage, only that it is counting (issue 49 item 18)', () => {
    // mutation: Gauge without its rough branch shows "78% context left" here, a figure the exact count then moves
    expect(renderGauge('ok', 78, colorTheme, { rough: true }).text).toBe('counting context…');
  });

  it('warning: yellow, and says where auto compaction fires', () => {
    const { raw, text } = renderGauge('warning', 18);
    expect(text).toContain('18% context left · auto-compact at 8% left');
    expect(text.startsWith('████████')).toBe(true);
    expect(fgCodes(raw)).toContain('33'); // yellow
    expect(fgCodes(raw)).not.toContain('32');
  });

  it('warning with auto compaction off says so instead', () => {
    expect(renderGauge('warning', 18, colorTheme, { autoCompactEnabled: false }).text).toContain('auto-compact off');
  });

  it('compact-soon: orange and bold', () => {
    const { raw, text } = renderGauge('compact-soon', 9);
    expect(text).toContain('9% context left · compacting soon');
    // #ff8700 at 16 colours is bright yellow (93) / at 256: 208; either way not plain yellow
    expect(fgCodes(raw).some((c) => c === '93' || c === '38;5;208' || c.startsWith('38;2;255;135'))).toBe(true);
    expect(raw).toContain('\u001b[1m');
  });

  it('blocking: red and says compaction is needed', () => {
    const { raw, text } = renderGauge('blocking', 1);
    expect(text).toContain('1% context left · context full — compaction needed');
    expect(fgCodes(raw)).toContain('31');
  });

  it('NO_COLOR: the same words, no colour codes at all', () => {
    for (const state of ['ok', 'warning', 'compact-soon', 'blocking'] as const) {
      const colored = renderGauge(state, 10);
      const plain = renderGauge(state, 10, plainTheme);
      expect(FG.test(colored.raw)).toBe(true);
      expect(FG.test(plain.raw)).toBe(false);
      expect(plain.text).toBe(colored.text);
    }
  });

  it('the bar fills with the share used', () => {
    expect(gaugeBar(100)).toBe('░░░░░░░░░░');
    expect(gaugeBar(50)).toBe('█████░░░░░');
    expect(gaugeBar(0)).toBe('██████████');
    expect(gaugeBar(-5)).toBe('██████████');
  });

  it('marks where auto compaction fires until the bar reaches it, and not when auto compaction is off', () => {
    // mutation: dropping the mark, or drawing it inside the filled part, fails these
    expect(gaugeBar(78, 10, 92)).toBe('██░░░░░░░│');
    expect(gaugeBar(78, 10, 55)).toBe('██░░░│░░░░');
    expect(gaugeBar(30, 10, 55)).toBe('███████░░░');
    expect(renderGauge('ok', 78, colorTheme, { autoCompactEnabled: false }).text).toBe('██░░░░░░░░ 78% context left');
  });

  it('labels round the percentage', () => {
    expect(gaugeLabel(usage({ percentLeft: 41.6 }))).toBe('42% context left');
  });

  it('says a compaction is written in the background, and when its summary is ready (issue 43)', () => {
    // mutation: gaugeLabel without its compacting branch fails both
    const compacting = { trigger: 'auto' as const, startedAt: 0, ready: false };
    expect(gaugeLabel(usage({ percentLeft: 30, state: 'compact-soon', compacting }))).toBe('30% context left · compacting in the background');
    expect(gaugeLabel(usage({ percentLeft: 60, compacting: { ...compacting, ready: true } }))).toBe(
      '60% context left · summary ready, swapped in at the next turn',
    );
    // at the hard limit the fallback comes next: the state's own words
    expect(gaugeLabel(usage({ percentLeft: 2, state: 'blocking', compacting }))).toBe('2% context left · context full — compaction needed');
  });
});

describe('the status line', () => {
  it('shows model, shortened cwd, short session id, gauge and the notice', () => {
    const r = render(
      <ThemeContext.Provider value={plainTheme}>
        <StatusLine
          session={session({ cwd: '/home/dev/projects/agent', id: 's_0000abcd1234efgh' })}
          usage={usage({ notice: 'Auto compaction is off after 3 failures in a row' })}
          home="/home/dev"
        />
      </ThemeContext.Provider>,
    );
    const text = stripAnsi(r.lastFrame() ?? '');
    r.unmount();
    expect(text).toContain('claude-sonnet-4-5 · ~/projects/agent · 1234efgh');
    expect(text).toContain('78% context left');
    expect(text).toContain('⚠ Auto compaction is off after 3 failures in a row');
  });
});

describe('colour detection', () => {
  it('NO_COLOR wins, FORCE_COLOR next, then the terminal', () => {
    expect(detectColor({ env: { NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true })).toBe(false);
    expect(detectColor({ env: { NO_COLOR: '' }, isTTY: true })).toBe(true);
    expect(detectColor({ env: { FORCE_COLOR: '1' }, isTTY: false })).toBe(true);
    expect(detectColor({ env: { FORCE_COLOR: '0' }, isTTY: true })).toBe(false);
    expect(detectColor({ env: { TERM: 'dumb' }, isTTY: true })).toBe(false);
    expect(detectColor({ env: {}, isTTY: false })).toBe(false);
    expect(detectColor({ env: {}, isTTY: true, hasColors: () => false })).toBe(false);
    expect(detectColor({ env: {}, isTTY: true, hasColors: () => true })).toBe(true);
  });
});
