import { createContext, useContext } from 'react';
import type { GaugeState } from '../compaction/budget.js';

/**
 * Colours by role. Without colour (NO_COLOR, a dumb terminal) every colour is undefined and
 * the components fall back to text and plain attributes (bold, dim, inverse).
 */
export interface Theme {
  color: boolean;
  accent: string | undefined;
  user: string | undefined;
  tool: string | undefined;
  success: string | undefined;
  error: string | undefined;
  warning: string | undefined;
  caution: string | undefined;
  info: string | undefined;
  muted: string | undefined;
  gauge: Record<GaugeState, string | undefined>;
  /** A dumb terminal (TERM=dumb): no box borders, no spinner animation. */
  dumb?: boolean;
}

export const colorTheme: Theme = {
  color: true,
  accent: 'cyan',
  user: 'blueBright',
  tool: 'magenta',
  success: 'green',
  error: 'red',
  warning: 'yellow',
  caution: '#ff8700',
  info: 'cyan',
  muted: 'gray',
  gauge: { ok: 'green', warning: 'yellow', 'compact-soon': '#ff8700', blocking: 'red' },
};

export const plainTheme: Theme = {
  color: false,
  accent: undefined,
  user: undefined,
  tool: undefined,
  success: undefined,
  error: undefined,
  warning: undefined,
  caution: undefined,
  info: undefined,
  muted: undefined,
  gauge: { ok: undefined, warning: undefined, 'compact-soon': undefined, blocking: undefined },
};

/** TERM=dumb: no colour, no boxes, no spinner. */
export const dumbTheme: Theme = { ...plainTheme, dumb: true };

/** The border style of a box, none on a dumb terminal. */
export const boxBorder = (theme: Theme): 'round' | undefined => (theme.dumb ? undefined : 'round');

export interface ColorProbe {
  env: Record<string, string | undefined>;
  isTTY?: boolean | undefined;
  hasColors?: (() => boolean) | undefined;
}

/** NO_COLOR (any non-empty value) wins, then FORCE_COLOR, then what the terminal says it can do. */
export function detectColor({ env, isTTY, hasColors }: ColorProbe): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return !(force === '0' || force === 'false');
  if (env['TERM'] === 'dumb') return false;
  if (!isTTY) return false;
  return hasColors ? hasColors() : true;
}

export const ThemeContext = createContext<Theme>(colorTheme);
export const useTheme = (): Theme => useContext(ThemeContext);
