# The PYTHON instance the runtime tests run: prints its FWORKER_INSTANCE,
# tells the test it is ready through the FN_NOTIFY FIFO, and runs until a
# signal ends it.
import os
import time

print("FWORKER_INSTANCE=" + os.environ["FWORKER_INSTANCE"], flush=True)
with open(os.environ["FN_NOTIFY"], "a") as f:
    f.write("ready %s %s %d\n" % (os.environ["FWORKER_INSTANCE"], os.environ["FWORKER_GEN"], os.getpid()))
while True:
    time.sleep(3600)
