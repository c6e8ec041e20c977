/* global process */
// Preloaded with `node --import` into a process that must never reach a network: every way
// out (a socket connect, a name lookup, fetch) throws, and the attempt is reported on stderr,
// so a test can tell "made no network call" from "made one and shrugged off the error".
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';

const refuse = (what) => {
  const message = `no-network: ${what} attempted while the network is unavailable`;
  process.stderr.write(`${message}\n`);
  throw new Error(message);
};

net.Socket.prototype.connect = function connect() {
  return refuse('net.Socket.connect');
};
net.connect = () => refuse('net.connect');
net.createConnection = () => refuse('net.createConnection');
tls.connect = () => refuse('tls.connect');
dns.lookup = () => refuse('dns.lookup');
dns.resolve = () => refuse('dns.resolve');
dns.promises.lookup = () => refuse('dns.promises.lookup');
dns.promises.resolve = () => refuse('dns.promises.resolve');
globalThis.fetch = async () => refuse('fetch');
