// Runs a judged C# program (its assembly the first argument, its own arguments after) with a
// trace listener that ends the process at the first failed Debug.Assert or Trace.Assert, as a
// failed assertion ends a program in the other languages. Mono's default listener only logs the
// failure and the program goes on to exit 0: MultiPL-E's C# tests (Debug.Assert lines in Main)
// would accept any answer.
using System;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.ExceptionServices;

static class JudgeLauncher
{
    // The status of an uncaught exception, which is what a failed assertion is elsewhere.
    const int FailedAssertionExit = 1;

    sealed class FailingListener : TraceListener
    {
        public override void Write(string message) { }
        public override void WriteLine(string message) { }
        public override void Fail(string message) { Fail(message, null); }

        public override void Fail(string message, string detail)
        {
            Console.Out.Flush();
            Console.Error.WriteLine("Assertion failed: " + (message ?? "")
                + (string.IsNullOrEmpty(detail) ? "" : " " + detail));
            Console.Error.Write(ProgramFrames());
            Console.Error.Flush();
            Environment.Exit(FailedAssertionExit);
        }
    }

    // The failed assertion's place: the stack without Debug's, Trace's and the launcher's frames.
    static string ProgramFrames()
    {
        var frames = new System.Text.StringBuilder();
        foreach (StackFrame frame in new StackTrace(true).GetFrames())
        {
            MethodBase method = frame.GetMethod();
            Type type = method == null ? null : method.DeclaringType;
            if (type == null || type.Namespace == "System.Diagnostics"
                || type.Namespace == "System.Reflection" || type.Assembly == typeof(JudgeLauncher).Assembly)
                continue;
            frames.AppendLine("  at " + type.FullName + "." + method.Name);
        }
        return frames.ToString();
    }

    // Whether the program names Debug or Trace (their type references are null-terminated
    // names in its metadata). Only then is the listener installed: the first use of the
    // listeners reads Mono's configuration, about 55 ms of CPU a program that asserts nothing
    // should not pay.
    static bool NamesDebugOrTrace(byte[] image)
    {
        return Contains(image, "\0Debug\0") || Contains(image, "\0Trace\0");
    }

    static bool Contains(byte[] haystack, string needle)
    {
        for (int start = 0; start + needle.Length <= haystack.Length; start++)
        {
            int matched = 0;
            while (matched < needle.Length && haystack[start + matched] == needle[matched]) matched++;
            if (matched == needle.Length) return true;
        }
        return false;
    }

    static int Main(string[] args)
    {
        if (NamesDebugOrTrace(System.IO.File.ReadAllBytes(args[0])))
        {
            Trace.Listeners.Clear();
            Trace.Listeners.Add(new FailingListener());
        }
        MethodInfo entry = Assembly.LoadFrom(args[0]).EntryPoint;
        string[] programArgs = new string[args.Length - 1];
        Array.Copy(args, 1, programArgs, 0, programArgs.Length);
        object[] parameters = entry.GetParameters().Length == 0 ? null : new object[] { programArgs };
        try
        {
            object status = entry.Invoke(null, parameters);
            return status is int ? (int)status : 0;
        }
        catch (TargetInvocationException invocation)
        {
            // The program's own exception, uncaught, as if it had been thrown without the launcher.
            ExceptionDispatchInfo.Capture(invocation.InnerException).Throw();
            throw;
        }
    }
}
