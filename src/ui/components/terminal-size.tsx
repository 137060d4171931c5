import { createContext, useContext, useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface TerminalSize {
  columns: number;
  rows: number;
}

const read = (stdout: NodeJS.WriteStream): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });

/** The terminal's size, updated on resize. The App reads it once and hands it down by context. */
export function useTerminalSizeSource(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => read(stdout));
  useEffect(() => {
    const onResize = (): void => setSize(read(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

export const TerminalSizeContext = createContext<TerminalSize>({ columns: 80, rows: 24 });
export const useTerminalSize = (): TerminalSize => useContext(TerminalSizeContext);
