package mmkg;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Test-only Neo4j 5.26 server for mmkg's tests, started in-process with neo4j-harness.
 *
 * <pre>
 * java -Xmx512m -jar neo4j-launcher.jar --dir DIR [--port N] [--bolt-port N] [--url-file FILE]
 *      [--pagecache-mb N] [--ignore-stdin]
 * </pre>
 *
 * Listens on 127.0.0.1 only, auth disabled, HTTP (with the Query API, POST /db/neo4j/query/v2) and
 * Bolt enabled, HTTPS disabled. Port 0 picks a free port. When ready prints one line
 * {@code NEO4J_HTTP=http://127.0.0.1:PORT} (and {@code NEO4J_BOLT=bolt://127.0.0.1:PORT} on the
 * next line); the same lines are written atomically to --url-file. Runs until stdin reaches EOF
 * (unless --ignore-stdin) or SIGTERM/SIGINT, then shuts down cleanly and deletes --url-file.
 * The store lives in a random sub-folder of DIR that the harness deletes on shutdown.
 */
public final class Neo4jLauncher {
    private static void usage(String msg) {
        System.err.println("neo4j-launcher: " + msg);
        System.err.println("usage: neo4j-launcher --dir DIR [--port N] [--bolt-port N] [--url-file FILE]"
                + " [--pagecache-mb N] [--ignore-stdin] [--watch-pid PID]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        Path dir = null;
        Path urlFile = null;
        int port = 0;
        int boltPort = 0;
        long pagecacheMb = 32;
        boolean watchStdin = true;
        long watchPid = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            boolean hasValue = i + 1 < args.length;
            switch (a) {
                case "--dir": if (!hasValue) usage("--dir needs a value"); dir = Path.of(args[++i]); break;
                case "--port": if (!hasValue) usage("--port needs a value"); port = Integer.parseInt(args[++i]); break;
                case "--bolt-port": if (!hasValue) usage("--bolt-port needs a value"); boltPort = Integer.parseInt(args[++i]); break;
                case "--url-file": if (!hasValue) usage("--url-file needs a value"); urlFile = Path.of(args[++i]); break;
                case "--pagecache-mb": if (!hasValue) usage("--pagecache-mb needs a value"); pagecacheMb = Long.parseLong(args[++i]); break;
                case "--ignore-stdin": watchStdin = false; break;
                case "--watch-pid": if (!hasValue) usage("--watch-pid needs a value"); watchPid = Long.parseLong(args[++i]); break;
                default: usage("unknown argument " + a);
            }
        }
        if (dir == null) usage("--dir is required");
        Files.createDirectories(dir);
        final Path dirAbs = dir.toAbsolutePath();
        final Path urlFileAbs = urlFile == null ? null : urlFile.toAbsolutePath();

        long t0 = System.nanoTime();
        final Neo4j neo4j = Neo4jBuilders.newInProcessBuilder(dirAbs)
                .withConfig(GraphDatabaseSettings.auth_enabled, false)
                .withConfig(HttpConnector.enabled, true)
                .withConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(HttpConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .withConfig(HttpsConnector.enabled, false)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", boltPort))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", boltPort))
                .withConfig(ServerSettings.http_enabled_modules, EnumSet.of(
                        ConfigurableServerModules.TRANSACTIONAL_ENDPOINTS,
                        ConfigurableServerModules.QUERY_API_ENDPOINTS,
                        ConfigurableServerModules.UNMANAGED_EXTENSIONS))
                .withConfig(GraphDatabaseSettings.pagecache_memory, pagecacheMb * 1024L * 1024L)
                // Don't preallocate 256 MiB transaction log files: tests create many small stores.
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.logical_log_rotation_threshold, 16L * 1024L * 1024L)
                // Bolt's netty event loops otherwise wait a 5 s quiet period twice on shutdown (~10 s stop).
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .build();

        final AtomicBoolean closed = new AtomicBoolean(false);
        final CountDownLatch done = new CountDownLatch(1);
        Runnable shutdown = () -> {
            if (!closed.compareAndSet(false, true)) return;
            try {
                if (urlFileAbs != null) Files.deleteIfExists(urlFileAbs);
            } catch (IOException ignored) {
                // best effort
            }
            long s0 = System.nanoTime();
            try {
                neo4j.close();
                System.err.printf("neo4j-launcher: stopped in %.1f s%n", (System.nanoTime() - s0) / 1e9);
            } catch (Throwable t) {
                System.err.println("neo4j-launcher: error during shutdown: " + t);
            } finally {
                done.countDown();
            }
        };
        // SIGTERM / SIGINT run shutdown hooks; the hook waits for the clean close.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            shutdown.run();
            try {
                done.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "neo4j-launcher-shutdown"));

        URI http = neo4j.httpURI();
        URI bolt = neo4j.boltURI();
        String httpUrl = "http://127.0.0.1:" + http.getPort();
        String boltUrl = "bolt://127.0.0.1:" + bolt.getPort();
        String lines = "NEO4J_HTTP=" + httpUrl + "\nNEO4J_BOLT=" + boltUrl + "\n";
        if (urlFileAbs != null) {
            Path parent = urlFileAbs.getParent();
            if (parent != null) Files.createDirectories(parent);
            Path tmp = urlFileAbs.resolveSibling(urlFileAbs.getFileName() + ".tmp");
            Files.writeString(tmp, lines, StandardCharsets.UTF_8);
            Files.move(tmp, urlFileAbs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        System.err.printf("neo4j-launcher: Neo4j started in %.1f s (store under %s)%n",
                (System.nanoTime() - t0) / 1e9, dirAbs);
        System.out.print(lines);
        System.out.flush();

        if (watchStdin) {
            Thread stdinWatcher = new Thread(() -> {
                byte[] buf = new byte[4096];
                try (InputStream in = System.in) {
                    while (in.read(buf) >= 0) {
                        // discard; we only wait for EOF
                    }
                } catch (IOException ignored) {
                    // treat a broken stdin as EOF
                }
                System.err.println("neo4j-launcher: stdin closed, shutting down");
                shutdown.run();
            }, "neo4j-launcher-stdin");
            stdinWatcher.setDaemon(true);
            stdinWatcher.start();
        }
        // A test run that starts a server and is then killed (ctest timeout, ^C, kill -9) cannot
        // stop it: with --watch-pid the server stops itself, cleanly, when that process ends.
        if (watchPid > 0) {
            final long watched = watchPid;
            java.util.Optional<ProcessHandle> h = ProcessHandle.of(watched);
            if (h.isEmpty() || !h.get().isAlive()) {
                System.err.println("neo4j-launcher: watched process " + watched + " is gone, shutting down");
                shutdown.run();
            } else {
                h.get().onExit().thenRun(() -> {
                    System.err.println("neo4j-launcher: watched process " + watched + " ended, shutting down");
                    shutdown.run();
                });
            }
        }
        done.await();
        System.exit(0);
    }
}
