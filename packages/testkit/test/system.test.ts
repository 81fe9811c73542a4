/**
 * Starting a system on a shared machine: a port the testkit picked may be taken by another program before the
 * service binds it. The process then exits with EADDRINUSE; the start must see that at once (not wait out its
 * 60 s readiness window) and try once more on fresh ports.
 */
import fs from 'node:fs';
import net from 'node:net';
import { startPrivateSystem, type PrivateSystem } from '../src/private';
import * as ports from '../src/ports';

jest.mock('../src/ports', () => {
  const actual = jest.requireActual<typeof import('../src/ports')>('../src/ports');
  return { ...actual, freePorts: jest.fn(actual.freePorts) };
});

// The readiness window is 60 s: a start that waited it out for the exited process, then started again, would fail here.
jest.setTimeout(60000);

describe('a private system whose port is taken', () => {
  let taken: net.Server;
  let sys: PrivateSystem | undefined;

  beforeAll(async () => {
    taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await sys?.stop();
    await new Promise((resolve) => taken.close(resolve));
  });

  it('starts on fresh ports after the first start fails with EADDRINUSE', async () => {
    const takenPort = (taken.address() as net.AddressInfo).port;
    const freePorts = jest.mocked(ports.freePorts);
    // The first allocation hands a service's RPC port (index 2: the first service's) that is in use.
    freePorts.mockImplementationOnce(async (n) => {
      const fresh = await jest.requireActual<typeof import('../src/ports')>('../src/ports').freePorts(n);
      fresh[2] = takenPort;
      return fresh;
    });

    sys = await startPrivateSystem({ name: 'port-taken' });

    expect(freePorts.mock.calls.length).toBe(2);
    const rpcPorts = Object.values(sys.system.ports.services).map((p) => p.rpcPort);
    expect(rpcPorts).not.toContain(takenPort);
    const res = await fetch(`${sys.system.gatewayUrl}/readyz`);
    expect(res.status).toBe(200);
    // The first attempt's log says why it failed.
    const firstService = [...sys.system.processes.values()][0]!;
    expect(fs.readFileSync(firstService.logFile, 'utf8')).toContain('EADDRINUSE');
  });
});
