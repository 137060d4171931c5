import { Component, type ReactNode } from 'react';
import { Text } from 'ink';

interface Props {
  children: ReactNode;
}

interface State {
  error: string | null;
}

/** One item that fails to render (a renderer bug, odd input) shows a line instead of ending the app. */
export class ItemErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  override render(): ReactNode {
    if (this.state.error !== null) return <Text color="red">⚠ This item could not be shown: {this.state.error.replace(/[\x00-\x1f\x7f-\x9f]/g, '')}</Text>;
    return this.props.children;
  }
}
