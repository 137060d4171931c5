// Preloaded (node --import) into server-everything's HTTP modes, which listen on every
// interface: a listen(port[, cb]) without a host binds to 127.0.0.1 instead.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] === 'function')) return listen.call(this, args[0], '127.0.0.1', ...args.slice(1));
  return listen.apply(this, args);
};
