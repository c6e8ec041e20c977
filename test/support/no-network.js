/* global process */
// Preloaded with `node --import` into a process that must never reach a network: every TCP
// connect, name lookup and fetch throws, and the attempt is reported on stderr, so a test can
// tell "made no network call" from "made one and shrugged off the error". Local IPC (a Unix
// socket or named pipe, given as a path — tsx talks to its own loader that way) is no network
// and is let through.
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';

const refuse = (what) => {
  const message = `no-network: ${what} attempted while the network is unavailable`;
  process.stderr.write(`${message}\n`);
  throw new Error(message);
};

/** A connect call's target is a local socket path (`connect(path)`, `connect({ path })`). */
const local = (args) => {
  const [first] = args;
  if (typeof first === 'string' && !/^\d+$/.test(first)) return true;
  if (Array.isArray(first)) return local(first);
  return typeof first === 'object' && first !== null && typeof first.path === 'string';
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  if (!local(args)) refuse('a TCP connect');
  return connect.apply(this, args);
};
const createConnection = net.createConnection;
net.connect = (...args) => (local(args) ? createConnection(...args) : refuse('net.connect'));
net.createConnection = (...args) =>
  local(args) ? createConnection(...args) : refuse('net.createConnection');
tls.connect = () => refuse('tls.connect');
dns.lookup = () => refuse('dns.lookup');
dns.resolve = () => refuse('dns.resolve');
dns.promises.lookup = () => refuse('dns.promises.lookup');
dns.promises.resolve = () => refuse('dns.promises.resolve');
globalThis.fetch = async () => refuse('fetch');
