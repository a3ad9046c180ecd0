"""A TCP relay that holds every chunk going to the server for a fixed delay before forwarding it:
added round-trip latency for kernels without `tc netem` (the benchmark VM's has none). Replies pass
through at once. Chunks keep their order (each waits the same delay after it arrived).

  python3 -m harness.delay_relay LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS
"""
import asyncio
import sys


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if delay:
                loop.call_later(delay, writer.write, data)
            else:
                writer.write(data)
                await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        if delay:
            await asyncio.sleep(delay)
        writer.close()


async def main(listen_host, listen_port, target_host, target_port, delay_ms):
    delay = delay_ms / 1000

    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        for w in (client_writer, server_writer):
            sock = w.get_extra_info("socket")
            if sock is not None:
                import socket
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pipe(client_reader, server_writer, delay), pipe(server_reader, client_writer, 0))

    server = await asyncio.start_server(relay, listen_host, listen_port)
    print("relaying", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    host, port, target, target_port, delay_ms = sys.argv[1:6]
    asyncio.run(main(host, int(port), target, int(target_port), float(delay_ms)))
