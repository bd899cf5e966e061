package io.sluice.testkit.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The few Redis commands the fixture itself sends (PING, CLUSTER MEET, CLUSTER ADDSLOTS,
 * CLUSTER INFO), over one short-lived RESP2 connection, so that the test kit needs no
 * Redis client library.
 */
final class Resp {

    private static final int TIMEOUT_MILLIS = 5_000;

    private Resp() {
    }

    /**
     * Sends one command and returns its reply: a {@code String} (simple or bulk string),
     * a {@code Long}, a {@code List<Object>} or {@code null}.
     *
     * @throws RedisReplyException when Redis answers with an error
     * @throws IOException when Redis cannot be reached
     */
    static @Nullable Object call(String host, int port, String... command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(encode(command));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    private static byte[] encode(String... command) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        writeAscii(bytes, "*" + command.length + "\r\n");
        for (String argument : command) {
            byte[] value = argument.getBytes(StandardCharsets.UTF_8);
            writeAscii(bytes, "$" + value.length + "\r\n");
            bytes.writeBytes(value);
            writeAscii(bytes, "\r\n");
        }
        return bytes.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream bytes, String text) {
        bytes.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static @Nullable Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RedisReplyException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] value = in.readNBytes(length + 2);
                return new String(value, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    elements.add(read(in));
                }
                return elements;
            }
            default:
                throw new IOException("not a RESP2 reply, type byte " + type + ": " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed in the middle of a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }
}
