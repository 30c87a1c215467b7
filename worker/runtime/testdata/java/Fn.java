// The JAVA instance the runtime tests run: prints its FWORKER_INSTANCE,
// tells the test it is ready through the FN_NOTIFY FIFO, and runs until a
// signal ends it.
import java.io.FileWriter;

public class Fn {
    public static void main(String[] args) throws Exception {
        String instance = System.getenv("FWORKER_INSTANCE");
        System.out.println("FWORKER_INSTANCE=" + instance);
        System.out.flush();
        try (FileWriter w = new FileWriter(System.getenv("FN_NOTIFY"), true)) {
            w.write("ready " + instance + " " + System.getenv("FWORKER_GEN") + " " + ProcessHandle.current().pid() + "\n");
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
