# A Spark image whose driver and executors load Sluice's client: Spark's own image with the
# client jar of its line beside Spark's jars (docs/deploy.md, "Spark on Kubernetes"). From the
# repository root after `mvn -B -DskipTests package`:
#   docker build -f deploy/docker/spark.Dockerfile -t spark-sluice:3.5.9 .
# Other lines: --build-arg SPARK_IMAGE=apache/spark:4.2.0 and
#   --build-arg CLIENT_JAR=client-spark-4/target/sluice-client-spark-4_2.13-0.1.0-SNAPSHOT-shaded.jar
ARG SPARK_IMAGE=apache/spark:3.5.9
FROM ${SPARK_IMAGE}
ARG CLIENT_JAR=client-spark/target/sluice-client-spark-3.5_2.12-0.1.0-SNAPSHOT-shaded.jar
# Spark 3 creates the shuffle manager before it loads --jars: the jar must be on the class path
# from the start, and $SPARK_HOME/jars is.
COPY ${CLIENT_JAR} /opt/spark/jars/
