import { describe, expect, it } from 'vitest';
import { formatAge, formatDuration, formatElapsed, formatTokens, formatUsd, shortenPath, shortId } from '../../src/ui/format.js';
import { plural } from '../../src/tools/format.js';

describe('formatting', () => {
  it('tokens', () => {
    expect(formatTokens(850)).toBe('850');
    expect(formatTokens(19_800)).toBe('19.8k');
    expect(formatTokens(171_234)).toBe('171.2k');
    expect(formatTokens(1_050_000)).toBe('1.05M');
  });

  it('durations and elapsed time', () => {
    expect(formatDuration(12)).toBe('12ms');
    expect(formatDuration(6_100)).toBe('6.1s');
    expect(formatDuration(125_000)).toBe('2m 05s');
    expect(formatDuration(3_780_000)).toBe('1h 03m');
    expect(formatElapsed(4_999)).toBe('4s');
    expect(formatElapsed(72_000)).toBe('1m 12s');
  });

  it('ages', () => {
    const now = Date.UTC(2025, 5, 30);
    expect(formatAge(now - 10_000, now)).toBe('just now');
    expect(formatAge(now - 5 * 60_000, now)).toBe('5m ago');
    expect(formatAge(now - 3 * 3_600_000, now)).toBe('3h ago');
    expect(formatAge(now - 2 * 86_400_000, now)).toBe('2d ago');
    expect(formatAge(Date.UTC(2025, 0, 2), now)).toBe('2025-01-02');
  });

  it('paths: home as ~, long paths keep their last segments', () => {
    expect(shortenPath('/home/dev/projects/agent', '/home/dev', 40)).toBe('~/projects/agent');
    expect(shortenPath('/home/devel/x', '/home/dev', 40)).toBe('/home/devel/x');
    expect(shortenPath('/srv/a/very/long/path/to/the/project', undefined, 20)).toBe('…/to/the/project');
    expect(shortenPath('/srv/averyveryveryverylongname', undefined, 12).length).toBeLessThanOrEqual(12);
  });

  it('ids, money, plurals', () => {
    expect(shortId('s_0000abcd1234efgh')).toBe('1234efgh');
    expect(formatUsd(0.5123)).toBe('$0.51');
    expect(formatUsd(0.0012)).toBe('$0.0012');
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(1430, 'message')).toBe('1,430 messages');
  });
});
