#!/usr/bin/python3
"""A scheduler extender that does nothing, as fast as Python allows, for
measuring what an extender call costs the scheduler (docs/benchmarks-history.md,
"Scheduler extenders"). filter keeps every node, prioritize scores every node
0; both answer in the form asked (Nodes or NodeNames). HTTP/1.1 keep-alive,
one asyncio loop.

  bench/noop_extender.py PORT
"""

import asyncio
import json
import sys


def answer(path, args):
    if path.endswith("/filter"):
        if args.get("NodeNames") is not None:
            return {"NodeNames": args["NodeNames"]}
        return {"Nodes": args["Nodes"]}
    names = args.get("NodeNames") or [n["metadata"]["name"] for n in args["Nodes"]["items"]]
    return [{"Host": n, "Score": 0} for n in names]


class Connection(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4:end + 4 + length]
            self.buffer = self.buffer[end + 4 + length:]
            path = head.split(" ", 2)[1]
            out = json.dumps(answer(path, json.loads(body))).encode()
            self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                 str(len(out)).encode() + b"\r\n\r\n" + out)


async def main(port):
    server = await asyncio.get_running_loop().create_server(Connection, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
