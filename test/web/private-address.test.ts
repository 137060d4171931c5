import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/web/fetchPage.js';

describe("WebFetch's private addresses", () => {
  it('refuse all of 172.16.0.0/12 (172.16 to 172.31), not only 172.16, and nothing beside it', () => {
    for (const a of ['172.16.0.1', '172.20.5.5', '172.31.255.254', '::ffff:172.24.1.1']) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['172.15.255.255', '172.32.0.1', '8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuse loopback, the other private ranges, link-local, CGNAT and their IPv6 kin', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1'])
      expect(isPrivateAddress(a), a).toBe(true);
  });
});
// Mutation checked: `['172.16.0.0', 12]` made `['172.16.0.0', 16]` in fetchPage.ts fails the first case
// (172.20.5.5 and 172.31.255.254 pass as public).
